// Package bpf holds what Spindle's eBPF programs share: the "unsupported" sentinel and the
// translation of load and attach failures into a reason a user can act on.
//
// Each object lives in its own directory (blockio: the block-layer programs, one per hook,
// which blocklatency, blocksplit and mrcsample's block stream share; pagecache; mrcsample):
// `<name>.bpf.c`, a gen.go with the go:generate line, and the bpf2go output (Go + .o) committed
// so a build needs no clang. include/ holds the headers the programs share. `go generate
// ./internal/bpf/...` rebuilds them with Debian's clang; include/vmlinux.h comes from
// `bpftool btf dump file /sys/kernel/btf/vmlinux format c`. The programs use CO-RE, so one
// object runs on every kernel with BTF.
package bpf

import "errors"

// ErrUnsupported means this kernel or process cannot run the program: not Linux, no BTF, not
// root (or missing CAP_BPF and CAP_PERFMON), or a tracepoint or kernel function it needs is
// missing. The agent reports it as a missing capability and carries on with /proc data.
var ErrUnsupported = errors.New("eBPF unavailable")
