package bpf

import (
	"errors"
	"fmt"
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"
)

// Prepare checks what every program needs before loading one: kernel BTF (CO-RE relocations
// and BTF tracepoints need it) and, on kernels before 5.11, a memlock limit high enough for
// the maps.
func Prepare() error {
	if _, err := KernelTypes().Kernel(); err != nil {
		return fmt.Errorf("%w: the kernel has no BTF type information (/sys/kernel/btf/vmlinux; needs CONFIG_DEBUG_INFO_BTF=y, kernel 5.4 or newer): %v", ErrUnsupported, err)
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return Explain("raise the memlock limit", err)
	}
	return nil
}

// Explain wraps a load or attach error: failures that come from the system (privileges,
// kernel features) wrap ErrUnsupported with a hint; anything else (a verifier rejection of a
// program that loads elsewhere) is returned as is, because it is a bug to report.
func Explain(step string, err error) error {
	var verr *ebpf.VerifierError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrUnsupported):
		return err
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Errorf("%w: %s: permission denied (run the agent as root, or grant CAP_BPF, CAP_PERFMON and CAP_SYS_RESOURCE): %v", ErrUnsupported, step, err)
	case errors.Is(err, ebpf.ErrNotSupported), errors.Is(err, btf.ErrNotSupported):
		return fmt.Errorf("%w: %s: the kernel is too old or built without this eBPF feature: %v", ErrUnsupported, step, err)
	case errors.Is(err, os.ErrNotExist), errors.Is(err, btf.ErrNotFound):
		return fmt.Errorf("%w: %s: this kernel has no such tracepoint or function: %v", ErrUnsupported, step, err)
	case errors.As(err, &verr):
		return fmt.Errorf("%s: the kernel's verifier rejected the program (please report this with your kernel version): %w", step, err)
	default:
		return fmt.Errorf("%s: %w", step, err)
	}
}
