//go:build !windows

package collector

// windowsFileCacheCollector: elsewhere the page_cache collector is the eBPF program.
func windowsFileCacheCollector() Collector { return nil }
