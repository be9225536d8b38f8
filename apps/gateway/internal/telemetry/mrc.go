package telemetry

import "time"

// MissRatioCurve is one cache_mrc row: a curve the agent built over one window
// (docs/metrics.md, "Miss-ratio curves").
type MissRatioCurve struct {
	Time            time.Time // the end of the window
	WindowSeconds   float64
	Curve           string // page_cache, read_cache or block
	Scope           string // the read-cache scope or the disk; "" for page_cache
	SampleRate      float64
	SampledAccesses int64
	SizesBytes      []int64   // strictly ascending
	HitRatios       []float64 // in [0, 1], non-decreasing, one per size
}
