package catalogue

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
	ResourceCapabilities = "spindle.agent.capabilities"
)

// LatencyBucketCount is the number of buckets of DiskIOLatency: 2^0 … 2^26 microseconds and
// one above (agent/internal/bpf/blocklatency Slots).
const LatencyBucketCount = 28
