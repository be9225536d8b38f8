package otlpfixture

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Curve is one miss-ratio curve as the agent sends it when a window closes.
type Curve struct {
	Curve, Scope    string
	SizesBytes      []int64
	HitRatios       []float64
	SampleRate      float64
	SampledAccesses int64
	WindowSeconds   float64
}

// AddCurves adds the curves to the resourceIndex-th ResourceMetrics, stamped with s's end.
func AddCurves(md pmetric.Metrics, resourceIndex int, s Sample, curves ...Curve) {
	metrics := md.ResourceMetrics().At(resourceIndex).ScopeMetrics().At(0).Metrics()
	b := builder{metrics: metrics, start: pcommon.NewTimestampFromTime(s.Start), end: pcommon.NewTimestampFromTime(s.End)}
	hit := b.gauge("spindle.cache.mrc.hit_ratio", "1")
	rate := b.gauge("spindle.cache.mrc.sample_rate", "1")
	sampled := b.gauge("spindle.cache.mrc.sampled_accesses", "{access}")
	window := b.gauge("spindle.cache.mrc.window", "s")
	for _, c := range curves {
		attrs := map[string]string{"spindle.mrc.curve": c.Curve, "spindle.mrc.scope": c.Scope}
		for i, size := range c.SizesBytes {
			dp := b.point(hit, false, attrs)
			dp.Attributes().PutInt("spindle.mrc.size_bytes", size)
			dp.SetDoubleValue(c.HitRatios[i])
		}
		b.point(rate, false, attrs).SetDoubleValue(c.SampleRate)
		b.point(sampled, false, attrs).SetIntValue(c.SampledAccesses)
		b.point(window, false, attrs).SetDoubleValue(c.WindowSeconds)
	}
}
