package config

import (
	"fmt"
	"time"
)

// Defaults of the memory-read latency calibration.
const (
	DefaultMemoryLatencyPeriod = 10 * time.Minute
	minMemoryLatencyPeriod     = time.Minute
)

// ReadCacheConfig tunes what the agent measures for the read cache regardless of policy (the
// policy switches the read cache itself).
type ReadCacheConfig struct {
	// MemoryLatencyPeriod is start to start of successive calibrations of
	// spindle.read_cache.memory_read_latency (the first runs at agent start).
	MemoryLatencyPeriod time.Duration `yaml:"memory_latency_period"`
}

func (r ReadCacheConfig) validate() error {
	if r.MemoryLatencyPeriod < minMemoryLatencyPeriod {
		return fmt.Errorf("read_cache.memory_latency_period %s is below the minimum %s", r.MemoryLatencyPeriod, minMemoryLatencyPeriod)
	}
	return nil
}
