// Package etw counts per-I/O disk latency on Windows from the kernel's disk I/O events (Event
// Tracing for Windows, the NT Kernel Logger with the DiskIo flag) into the same 28 power-of-two
// buckets the Linux eBPF program fills. Each completion event carries the I/O's response time,
// so no start and end need pairing. Parsing and counting are platform-neutral (tested from
// fixture payloads everywhere); the session is session_windows.go.
package etw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"sync"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/blocklatency"
)

// ErrUnsupported means the session cannot run here: not Windows, no privilege, or the kernel
// logger in use; the error wrapping it says which.
var ErrUnsupported = errors.New("kernel disk I/O tracing (ETW) not available")

// Opcodes of the DiskIo class (MOF classes DiskIo_TypeGroup1 and DiskIo_TypeGroup3).
const (
	opcodeRead  = 10
	opcodeWrite = 11
	opcodeFlush = 14
)

// Payload layouts on 64-bit Windows (version 2 and later of the class):
//
//	TypeGroup1 (read, write): DiskNumber u32, IrpFlags u32, TransferSize u32, Reserved u32,
//	  ByteOffset u64, FileObject ptr, Irp ptr, HighResResponseTime u64, [IssuingThreadId u32]
//	TypeGroup3 (flush): DiskNumber u32, IrpFlags u32, HighResResponseTime u64, Irp ptr, [...]
const (
	group1ResponseOffset = 40
	group3ResponseOffset = 8
)

// DiskEvent is one completed I/O.
type DiskEvent struct {
	Disk          uint32
	Op            bpf.Op
	ResponseTicks uint64 // in the session's clock ticks (QueryPerformanceCounter)
}

// ParseDiskEvent decodes one DiskIo event's payload; ok is false for opcodes that are not
// completions of a read, write or flush (initiation events, for one).
func ParseDiskEvent(opcode uint8, payload []byte) (e DiskEvent, ok bool, err error) {
	var responseAt int
	switch opcode {
	case opcodeRead, opcodeWrite:
		responseAt = group1ResponseOffset
	case opcodeFlush:
		responseAt = group3ResponseOffset
	default:
		return DiskEvent{}, false, nil
	}
	if len(payload) < responseAt+8 {
		return DiskEvent{}, false, fmt.Errorf("DiskIo opcode %d: payload of %d bytes, want at least %d", opcode, len(payload), responseAt+8)
	}
	e = DiskEvent{Disk: binary.LittleEndian.Uint32(payload), ResponseTicks: binary.LittleEndian.Uint64(payload[responseAt:])}
	switch opcode {
	case opcodeRead:
		e.Op = bpf.OpRead
	case opcodeWrite:
		e.Op = bpf.OpWrite
	default:
		e.Op = bpf.OpFlush
	}
	return e, true, nil
}

// Key is one histogram: a disk (its number, as in \\.\PhysicalDrive<N>) and an operation.
type Key struct {
	Disk uint32
	Op   bpf.Op
}

// Histograms accumulate completed I/Os, cumulative since the session started. Add is called
// from the session's thread, Snapshot from the collector's.
type Histograms struct {
	ticksPerSecond uint64
	mu             sync.Mutex
	byKey          map[Key]blocklatency.Histogram
}

// NewHistograms counts response times given in ticks of a clock running at ticksPerSecond.
func NewHistograms(ticksPerSecond uint64) *Histograms {
	return &Histograms{ticksPerSecond: ticksPerSecond, byKey: map[Key]blocklatency.Histogram{}}
}

// Add counts one I/O.
func (h *Histograms) Add(e DiskEvent) {
	ns := ticksToNanos(e.ResponseTicks, h.ticksPerSecond)
	h.mu.Lock()
	defer h.mu.Unlock()
	k := Key{Disk: e.Disk, Op: e.Op}
	hist := h.byKey[k]
	hist.Counts[Slot(ns)]++
	hist.SumNanos += ns
	h.byKey[k] = hist
}

// Snapshot copies the cumulative histograms.
func (h *Histograms) Snapshot() map[Key]blocklatency.Histogram {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[Key]blocklatency.Histogram, len(h.byKey))
	for k, v := range h.byKey {
		out[k] = v
	}
	return out
}

// Slot is the bucket of a latency, as the eBPF program computes it: the smallest i with
// ceil(ns / 1000) <= 2^i microseconds, the last slot for anything above 2^26 us.
func Slot(ns uint64) int {
	us := (ns + 999) / 1000
	if us <= 1 {
		return 0
	}
	slot := bits.Len64(us - 1) // ceil(log2(us))
	return min(slot, blocklatency.Slots-1)
}

func ticksToNanos(ticks, perSecond uint64) uint64 {
	if perSecond == 0 {
		return 0
	}
	hi, lo := bits.Mul64(ticks, 1e9)
	if hi >= perSecond {
		return ^uint64(0) // beyond 584 years: saturate rather than wrap
	}
	ns, _ := bits.Div64(hi, lo, perSecond)
	return ns
}
