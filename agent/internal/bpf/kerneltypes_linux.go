package bpf

import (
	"sync"

	"github.com/cilium/ebpf/btf"
)

// kernelTypes is the process's one decode of the kernel's BTF while the collectors load their
// programs: cilium/ebpf decodes /sys/kernel/btf/vmlinux for every check and every load it is not
// handed a cache for (about 2.5 MiB of heap each, five or six times at start-up), which set the
// agent's peak RSS.
var kernelTypes struct {
	mu    sync.Mutex
	cache *btf.Cache
}

// KernelTypes is the shared decode, made on first use; pass it as CollectionOptions.Cache.
func KernelTypes() *btf.Cache {
	kernelTypes.mu.Lock()
	defer kernelTypes.mu.Unlock()
	if kernelTypes.cache == nil {
		kernelTypes.cache = btf.NewCache()
	}
	return kernelTypes.cache
}

// ReleaseKernelTypes drops the shared decode once the programs are loaded; a later load (a
// collector switched on by a policy) decodes again.
func ReleaseKernelTypes() {
	kernelTypes.mu.Lock()
	defer kernelTypes.mu.Unlock()
	kernelTypes.cache = nil
}
