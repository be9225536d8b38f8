// Package blockio loads the agent's block-layer eBPF programs (blockio.bpf.c) once per process
// and shares them between the collectors that read them: block latency, split I/O and the block
// stream of the miss-ratio curves. One program runs per hook (block_rq_issue, block_rq_complete,
// block_split) whatever uses it, so each block I/O pays for one program at issue and one at
// completion; a collector switches its part on with Acquire and off with Release.
package blockio

// Feature is a part of the block programs a collector uses.
type Feature uint32

const (
	// Latency stamps issue times and attaches block_rq_complete, which fills the histograms.
	Latency Feature = 1 // SWITCH_LATENCY
	// MRC samples each request's 4 KiB blocks into the miss-ratio-curve ring (spindle_mrc.h).
	MRC Feature = 2 // SWITCH_MRC
	// Split attaches block_split, which counts split bios per disk.
	Split Feature = 4
)

// LatencySlots is the number of histogram slots (LATENCY_SLOTS in blockio.bpf.c).
const LatencySlots = 28
