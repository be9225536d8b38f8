package catalogue

import "math"

// Histogram is a distribution over an interval with explicit bucket boundaries; collectors
// add pre-aggregated bucket counts (the kernel aggregates eBPF histograms).
type Histogram struct {
	Metric
	// Bounds are the upper bounds of every bucket but the last, in the metric's unit; bucket i
	// counts values in (Bounds[i-1], Bounds[i]], the last one everything above.
	Bounds []float64
}

// Attribute keys and values of the eBPF metrics.
const (
	AttrOperation        = "spindle.disk.operation" // flush or discard (both have direction write)
	AttrDropReason       = "reason"
	DropKernelBufferFull = "kernel_buffer_full"
	DropRingOverwritten  = "ring_overwritten"
	ResourceCapabilities = "spindle.agent.capabilities"
)

// LatencyBucketCount is the number of buckets of DiskIOLatency: 2^0 … 2^26 microseconds and
// one above (agent/internal/bpf/blocklatency Slots).
const LatencyBucketCount = 28

// Disk and page-cache metrics from eBPF (not stored by the gateway yet).
var (
	DiskIOLatency = Histogram{Metric{"spindle.disk.io.latency", "s",
		"Time from issue to the device until completion, per I/O, by device, direction and (flush, discard) operation."},
		log2MicrosBounds(LatencyBucketCount - 1)}
	DiskSplitOperations = IntCounter{Metric{"spindle.disk.split_operations", "{operation}",
		"Bios the block layer split because they exceeded the device's limits (block:block_split)."}}
	PageCacheAccesses = IntCounter{Metric{"spindle.page_cache.accesses", "{page}",
		"Pages read through the page cache plus page faults on file mappings, system-wide."}}
	PageCacheMisses = IntCounter{Metric{"spindle.page_cache.misses", "{page}",
		"Pages that had to be added to the page cache to be read (added minus dirtied), system-wide."}}
	BlockSamplesKept = IntCounter{Metric{"spindle.agent.block_samples.kept", "{sample}",
		"Sampled block I/Os stored in the agent's bounded ring."}}
	BlockSamplesDropped = IntCounter{Metric{"spindle.agent.block_samples.dropped", "{sample}",
		"Sampled block I/Os lost: the kernel buffer was full, or the ring overwrote them unread."}}
)

// Histograms lists every histogram metric.
var Histograms = []Histogram{DiskIOLatency}

// log2MicrosBounds returns 2^0 … 2^(n-1) microseconds, in seconds.
func log2MicrosBounds(n int) []float64 {
	bounds := make([]float64, n)
	for i := range bounds {
		bounds[i] = math.Ldexp(1, i) / 1e6
	}
	return bounds
}
