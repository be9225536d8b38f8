package bpf

// Op is a block operation as the kernel numbers it (REQ_OP_*); include/spindle_block.h records
// only these four.
type Op uint32

const (
	OpRead    Op = 0
	OpWrite   Op = 1
	OpFlush   Op = 2
	OpDiscard Op = 3
)

func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	case OpFlush:
		return "flush"
	case OpDiscard:
		return "discard"
	}
	return "unknown"
}

// Dev is a device number as the kernel's MKDEV builds it (major << 20 | minor), the way the
// programs report disks.
type Dev uint32

// MakeDev builds a Dev from /sys/block/<name>/dev's "major:minor".
func MakeDev(major, minor uint32) Dev { return Dev(major<<20 | minor&0xfffff) }

// Major and Minor split a Dev.
func (d Dev) Major() uint32 { return uint32(d) >> 20 }
func (d Dev) Minor() uint32 { return uint32(d) & 0xfffff }
