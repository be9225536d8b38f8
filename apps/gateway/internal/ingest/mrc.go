package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// The miss-ratio curve metrics (docs/metrics.md, "Miss-ratio curves"): per curve and window,
// one hit-ratio point per cache size and the curve's basis, all four required.
const (
	mrcHitRatio       = "spindle.cache.mrc.hit_ratio"
	mrcSampleRate     = "spindle.cache.mrc.sample_rate"
	mrcSampledAccess  = "spindle.cache.mrc.sampled_accesses"
	mrcWindow         = "spindle.cache.mrc.window"
	maxMRCPoints      = 1024 // cache_mrc's CHECK
	maxMRCScopeLength = 255  // cache_mrc's CHECK
)

// mrcUnits are the catalogue's units of the four metrics, by name.
var mrcUnits = func() map[string]string {
	units := map[string]string{}
	for _, name := range []string{mrcHitRatio, mrcSampleRate, mrcSampledAccess, mrcWindow} {
		units[name] = catalogue.MustLookup(name).Unit
	}
	return units
}()

var mrcCurves = map[string]bool{"page_cache": true, "read_cache": true, "block": true}

type mrcKey struct {
	time         pcommon.Timestamp
	curve, scope string
}

type mrcDraft struct {
	points     map[int64]float64 // size in bytes → hit ratio
	sampleRate *float64
	sampled    *int64
	window     *float64
}

// mrcRows collects one batch's curves.
type mrcRows map[mrcKey]*mrcDraft

func isMRCMetric(name string) bool { _, ok := mrcUnits[name]; return ok }

func (r mrcRows) add(m *otlp.Metric) error {
	return eachPoint(m, level, mrcUnits[m.Name], func(dp *otlp.NumberPoint) error {
		curve, err := stringAttribute(dp, "spindle.mrc.curve")
		if err != nil {
			return err
		}
		if !mrcCurves[curve] {
			return fmt.Errorf("spindle.mrc.curve %q is not page_cache, read_cache or block", curve)
		}
		scopeValue, _ := dp.Attributes.Get("spindle.mrc.scope")
		scope := scopeValue.Str
		switch {
		case curve == "page_cache" && scope != "":
			return fmt.Errorf("a page_cache curve has no scope, got spindle.mrc.scope %q", scope)
		case curve != "page_cache" && scope == "":
			return fmt.Errorf("a %s curve needs its spindle.mrc.scope (the read-cache scope or the disk)", curve)
		case len(scope) > maxMRCScopeLength:
			return fmt.Errorf("spindle.mrc.scope is %d characters; at most %d", len(scope), maxMRCScopeLength)
		}
		key := mrcKey{time: dp.Time, curve: curve, scope: scope}
		draft := r[key]
		if draft == nil {
			draft = &mrcDraft{points: map[int64]float64{}}
			r[key] = draft
		}
		return draft.add(m.Name, dp)
	})
}

func (d *mrcDraft) add(name string, dp *otlp.NumberPoint) error {
	value, err := finiteValue(dp)
	if err != nil {
		return err
	}
	switch name {
	case mrcHitRatio:
		size, err := mrcSize(dp.Attributes)
		if err != nil {
			return err
		}
		if value < 0 || value > 1 {
			return fmt.Errorf("hit ratio %v at %d bytes is outside [0, 1]", value, size)
		}
		if _, dup := d.points[size]; dup {
			return fmt.Errorf("two hit ratios for %d bytes in one curve", size)
		}
		d.points[size] = value
	case mrcSampleRate:
		if !(value > 0 && value <= 1) {
			return fmt.Errorf("sample rate %v is outside (0, 1]", value)
		}
		d.sampleRate = &value
	case mrcSampledAccess:
		if value < 0 || value != math.Trunc(value) || value >= maxExactInt64Float {
			return fmt.Errorf("sampled accesses %v is not a whole non-negative count", value)
		}
		n := int64(value)
		d.sampled = &n
	case mrcWindow:
		if !(value > 0) {
			return fmt.Errorf("window %v s is not positive", value)
		}
		d.window = &value
	}
	return nil
}

// mrcSize reads spindle.mrc.size_bytes, an int attribute.
func mrcSize(attrs otlp.Attributes) (int64, error) {
	v, ok := attrs.Get("spindle.mrc.size_bytes")
	if !ok || v.Type != pcommon.ValueTypeInt {
		return 0, fmt.Errorf("the hit-ratio point has no int spindle.mrc.size_bytes attribute")
	}
	if v.Int <= 0 {
		return 0, fmt.Errorf("spindle.mrc.size_bytes %d is not a positive size", v.Int)
	}
	return v.Int, nil
}

func finiteValue(dp *otlp.NumberPoint) (float64, error) {
	if dp.ValueType == pmetric.NumberDataPointValueTypeInt {
		return float64(dp.Int), nil
	}
	v := dp.Double
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %v is not a finite number", v)
	}
	return v, nil
}

// rows checks that each curve is whole (points and all three basis metrics) and shaped like a
// miss-ratio curve, and returns them in a stable order.
func (r mrcRows) rows() ([]telemetry.MissRatioCurve, error) {
	var out []telemetry.MissRatioCurve
	for key, d := range r {
		at := key.time.AsTime().UTC()
		name := fmt.Sprintf("curve %s/%q at %s", key.curve, key.scope, at)
		switch {
		case len(d.points) == 0:
			return nil, fmt.Errorf("%s: no %s points; a curve is sent whole (docs/metrics.md)", name, mrcHitRatio)
		case len(d.points) > maxMRCPoints:
			return nil, fmt.Errorf("%s: %d points; at most %d", name, len(d.points), maxMRCPoints)
		case d.sampleRate == nil || d.sampled == nil || d.window == nil:
			return nil, fmt.Errorf("%s: %s, %s and %s are all required with the points (docs/metrics.md)", name, mrcSampleRate, mrcSampledAccess, mrcWindow)
		}
		c := telemetry.MissRatioCurve{Time: at, WindowSeconds: *d.window, Curve: key.curve, Scope: key.scope,
			SampleRate: *d.sampleRate, SampledAccesses: *d.sampled}
		for size := range d.points {
			c.SizesBytes = append(c.SizesBytes, size)
		}
		slices.Sort(c.SizesBytes)
		for i, size := range c.SizesBytes {
			c.HitRatios = append(c.HitRatios, d.points[size])
			if i > 0 && c.HitRatios[i] < c.HitRatios[i-1] {
				return nil, fmt.Errorf("%s: hit ratio falls from %v to %v between %d and %d bytes; a larger LRU cache never hits less", name, c.HitRatios[i-1], c.HitRatios[i], c.SizesBytes[i-1], size)
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b telemetry.MissRatioCurve) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Curve, b.Curve), cmp.Compare(a.Scope, b.Scope))
	})
	return out, nil
}
