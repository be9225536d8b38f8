//go:build !windows

package collector

// windowsDiskLatencyCollector: elsewhere block_latency is the eBPF program.
func windowsDiskLatencyCollector(Options) Collector { return nil }
