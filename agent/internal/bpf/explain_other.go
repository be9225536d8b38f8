//go:build !linux

package bpf

import (
	"fmt"
	"runtime"
)

// Prepare reports that eBPF programs only run on Linux.
func Prepare() error {
	return fmt.Errorf("%w: eBPF programs need Linux, this is %s", ErrUnsupported, runtime.GOOS)
}

// ReleaseKernelTypes has nothing to drop: no kernel types are decoded off Linux.
func ReleaseKernelTypes() {}
