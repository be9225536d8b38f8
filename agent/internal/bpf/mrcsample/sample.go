// Package mrcsample streams the kernel's spatially hashed samples of the page-cache and block
// access streams (mrcsample.bpf.c) to a handler, the input of the agent's miss-ratio curves
// (internal/mrc). The agent sets one hash threshold per stream and lowers it as its curves'
// samples fill; the kernel counts every access per stream so curves can correct their size.
package mrcsample

import "github.com/spindle-io/spindle/agent/internal/bpf"

// Stream says which access stream a sample belongs to (STREAM_* in include/spindle_mrc.h).
type Stream uint32

const (
	PageCache Stream = 0
	Block     Stream = 1
)

// Sample is one sampled access.
type Sample struct {
	Hash   uint64  // mrc.PageKeyHash / mrc.BlockKeyHash of the key
	Stream Stream  // page cache or block
	Dev    bpf.Dev // page cache: the file's superblock device; block: the disk
	Inode  uint64  // page cache: the file's inode; block: 0
	Index  uint64  // page cache: page index in the file; block: 4 KiB block on the disk
}

// Settings configure a Probe.
type Settings struct {
	// Handle receives every sample, from one goroutine, in the order the kernel produced them
	// per CPU. It must be quick: the kernel's buffer fills while it runs.
	Handle func(Sample)
	// OnlyProcess, when not zero, samples the page cache of this process only (tests).
	OnlyProcess int
}

// Counts are cumulative since Load, per stream.
type Counts struct {
	Accesses [2]uint64 // every access seen (pages, blocks), sampled or not
	Lost     [2]uint64 // samples dropped because the kernel's buffer was full
}
