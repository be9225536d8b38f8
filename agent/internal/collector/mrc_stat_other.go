//go:build !linux

package collector

import "github.com/spindle-io/spindle/agent/internal/bpf"

// statKernelFile is never reached: the curves need Linux's eBPF.
func statKernelFile(string) (bpf.Dev, uint64, bool) { return 0, 0, false }
