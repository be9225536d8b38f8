// Package blocksamples streams a sampled record of block I/Os (disk, sector, size, operation,
// time) from the kernel through a BPF ring buffer into a fixed-capacity ring in the agent, the
// input of later miss-ratio-curve estimation. Memory is bounded twice: the kernel buffer is
// 256 KiB, and the agent's ring holds at most Capacity samples, overwriting the oldest.
package blocksamples

import (
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// Settings configure a Stream.
type Settings struct {
	SampleEvery uint32 // keep about 1 in SampleEvery I/Os (by block, see blocksamples.bpf.c); 1 keeps all
	Capacity    int    // samples the agent's ring holds
}

// Sample is one sampled block I/O, as issued to the device.
type Sample struct {
	Time   time.Time // when it was issued
	Dev    bpf.Dev   // the whole disk
	Sector uint64    // offset in 512-byte sectors
	Bytes  uint32
	Op     bpf.Op
}

// SampleBytes is the memory one slot of the ring takes, for sizing the capacity.
const SampleBytes = 48

// Ring keeps the newest samples up to a fixed capacity, allocated once. Safe for concurrent use.
type Ring struct {
	mu          sync.Mutex
	buf         []Sample
	next        int  // where the next sample goes
	full        bool // buf has wrapped at least once
	kept        uint64
	overwritten uint64
}

// NewRing allocates a ring of capacity samples (at least 1).
func NewRing(capacity int) *Ring {
	return &Ring{buf: make([]Sample, max(capacity, 1))}
}

// Push stores s, overwriting the oldest sample when the ring is full.
func (r *Ring) Push(s Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.full {
		r.overwritten++
	}
	r.buf[r.next] = s
	r.kept++
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

// Drain returns the samples held, oldest first, and empties the ring.
func (r *Ring) Drain() []Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Sample
	if r.full {
		out = append(out, r.buf[r.next:]...)
	}
	out = append(out, r.buf[:r.next]...)
	r.next, r.full = 0, false
	return out
}

// Len is the number of samples held.
func (r *Ring) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.full {
		return len(r.buf)
	}
	return r.next
}

// Capacity is the most samples the ring holds.
func (r *Ring) Capacity() int { return len(r.buf) }

// RingStats are cumulative counters since the ring was made.
type RingStats struct {
	Kept        uint64 // samples stored
	Overwritten uint64 // samples lost because the ring was full and nobody drained it
}

// Stats returns the ring's counters.
func (r *Ring) Stats() RingStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RingStats{Kept: r.kept, Overwritten: r.overwritten}
}
