package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// The acceleration features' statistics (docs/metrics.md, "Acceleration features"): one
// read_cache, read_cache_holdout and write_opt row per interval, each column filled by one catalogue metric
// (telemetry.AccelFamilies). A metric the agent did not send stays nil and is stored as NULL.

// accelMetric says which column of which family an OTLP metric fills.
type accelMetric struct {
	family *telemetry.AccelFamily
	index  int
	unit   string
}

var accelMetrics = func() map[string]accelMetric {
	out := map[string]accelMetric{}
	for _, family := range telemetry.AccelFamilies {
		for i, c := range family.Columns {
			out[c.Metric] = accelMetric{family: family, index: i, unit: catalogue.MustLookup(c.Metric).Unit}
		}
	}
	return out
}()

// writeOptFileMetric fills write_opt_files: one point per managed file, keyed by file.path.
var writeOptFileMetric = catalogue.MustLookup("spindle.write_opt.managed_file.extents")

// maxWriteOptFiles bounds one list; the agent sends the 20 most fragmented managed files.
const maxWriteOptFiles = 20

type accelKey struct {
	family *telemetry.AccelFamily
	time   pcommon.Timestamp
}

type accelDraft struct {
	start  pcommon.Timestamp // from the delta points; 0 until one arrives
	values []any
}

type accelRows map[accelKey]*accelDraft

func (rows accelRows) add(m *otlp.Metric, spec accelMetric) error {
	column := spec.family.Columns[spec.index]
	want := level
	if column.Kind == telemetry.AccelDelta {
		want = deltaCounter
	}
	return eachPoint(m, want, spec.unit, func(dp *otlp.NumberPoint) error {
		if dp.Time == 0 {
			return fmt.Errorf("the point has no timestamp")
		}
		var value any
		if column.Kind == telemetry.AccelSeconds {
			seconds, err := positiveSeconds(dp)
			if err != nil {
				return err
			}
			value = &seconds
		} else {
			count, err := countValue(dp)
			if err != nil {
				return err
			}
			value = &count
		}
		key := accelKey{family: spec.family, time: dp.Time}
		draft := rows[key]
		if draft == nil {
			draft = &accelDraft{values: make([]any, len(spec.family.Columns))}
			rows[key] = draft
		}
		if draft.values[spec.index] != nil {
			return fmt.Errorf("two points for %s.%s at %s", spec.family.Table, column.Column, dp.Time)
		}
		draft.values[spec.index] = value
		// The agent stamps every point with the tick's bounds, gauges included, so a row of
		// gauges alone (the memory-read latency while the read cache is off) knows its interval.
		if column.Kind == telemetry.AccelDelta || dp.Start != 0 {
			start, err := intervalStart(dp, draft.start)
			if err != nil {
				return err
			}
			draft.start = start
		}
		return nil
	})
}

// positiveSeconds reads a duration gauge kept in seconds: finite and above zero (a measured
// time is never 0; an unmeasured one is not sent).
func positiveSeconds(dp *otlp.NumberPoint) (float64, error) {
	v, err := floatValue(dp)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("value %v is not a positive finite number of seconds", v)
	}
	return v, nil
}

// rows returns one family's rows in time order. The interval comes from the row's points that
// carry a start time: every delta point, and gauges stamped with the tick's bounds.
func (rows accelRows) rows(family *telemetry.AccelFamily) ([]telemetry.AccelRow, error) {
	var out []telemetry.AccelRow
	for key, draft := range rows {
		if key.family != family {
			continue
		}
		at := key.time.AsTime().UTC()
		if draft.start == 0 {
			return nil, fmt.Errorf("%s at %s has no point with a start time, so its interval is unknown: stamp the gauges with the interval's start, or send the family's counters with them (docs/metrics.md)", family.Table, at)
		}
		if err := pairedLatency(family, draft.values); err != nil {
			return nil, fmt.Errorf("%s at %s: %w", family.Table, at, err)
		}
		if err := completeHoldout(family, draft.values); err != nil {
			return nil, fmt.Errorf("%s at %s: %w", family.Table, at, err)
		}
		out = append(out, telemetry.AccelRow{Time: at, IntervalSeconds: time.Duration(key.time - draft.start).Seconds(), Values: draft.values})
	}
	slices.SortFunc(out, func(a, b telemetry.AccelRow) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// pairedLatency: a memory-read latency means nothing without the reads it rests on, so the
// two gauges travel together (the table refuses one without the other).
func pairedLatency(family *telemetry.AccelFamily, values []any) error {
	latency, samples := -1, -1
	for i, c := range family.Columns {
		switch c.Column {
		case "memory_read_latency_seconds":
			latency = i
		case "memory_read_latency_samples":
			samples = i
		}
	}
	if latency < 0 || samples < 0 {
		return nil
	}
	if (values[latency] == nil) != (values[samples] == nil) {
		return fmt.Errorf("spindle.read_cache.memory_read_latency and its .samples must be sent together")
	}
	if n, ok := values[samples].(*int64); ok && *n == 0 {
		return fmt.Errorf("spindle.read_cache.memory_read_latency.samples is 0; a latency rests on at least one timed read")
	}
	return nil
}

// completeHoldout: the control-group estimate compares the two groups interval by interval, so
// an interval with some of their counts and not others could not be used and would mislead; the
// agent sends them all together (docs/metrics.md).
func completeHoldout(family *telemetry.AccelFamily, values []any) error {
	if family != &telemetry.ReadCacheHoldoutFamily {
		return nil
	}
	var missing []string
	for i, c := range family.Columns {
		if values[i] == nil {
			missing = append(missing, c.Metric)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the read cache's control-group metrics travel together; missing %s", strings.Join(missing, ", "))
	}
	return nil
}

// writeOptFileRows collects spindle.write_opt.managed_file.extents per interval.
type writeOptFileRows map[pcommon.Timestamp]*telemetry.WriteOptFiles

func (rows writeOptFileRows) add(m *otlp.Metric) error {
	return eachPoint(m, level, writeOptFileMetric.Unit, func(dp *otlp.NumberPoint) error {
		path, err := stringAttribute(dp, "file.path")
		if err != nil {
			return err
		}
		if dp.Time == 0 {
			return fmt.Errorf("the point has no timestamp")
		}
		extents, err := countValue(dp)
		if err != nil {
			return err
		}
		list := rows[dp.Time]
		if list == nil {
			list = &telemetry.WriteOptFiles{Time: dp.Time.AsTime().UTC()}
			rows[dp.Time] = list
		}
		if slices.ContainsFunc(list.Files, func(f telemetry.WriteOptFile) bool { return f.Path == path }) {
			return fmt.Errorf("two points for managed file %s at %s", path, list.Time)
		}
		list.Files = append(list.Files, telemetry.WriteOptFile{Path: path, Extents: extents})
		return nil
	})
}

// newest keeps the batch's newest list (older ones are superseded), most extents first.
func (rows writeOptFileRows) newest() (*telemetry.WriteOptFiles, error) {
	var newest *telemetry.WriteOptFiles
	for _, list := range rows {
		if newest == nil || list.Time.After(newest.Time) {
			newest = list
		}
	}
	if newest == nil {
		return nil, nil
	}
	if len(newest.Files) > maxWriteOptFiles {
		return nil, fmt.Errorf("write_opt_files at %s lists %d files; the agent sends at most the %d most fragmented (docs/metrics.md)", newest.Time, len(newest.Files), maxWriteOptFiles)
	}
	slices.SortFunc(newest.Files, func(a, b telemetry.WriteOptFile) int {
		return cmp.Or(cmp.Compare(b.Extents, a.Extents), cmp.Compare(a.Path, b.Path))
	})
	return newest, nil
}
