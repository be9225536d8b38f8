package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// SourceStats counts what Apply did with a Collector source's points.
type SourceStats struct {
	Deltas     int // counter points stored as the delta since the series' last point
	Baselines  int // first points of a series: kept as the base of the next delta, nothing stored
	Restarts   int // start time changed or the value went down: a new baseline, never a negative delta
	Duplicates int // at or before the series' last point: sent again (at least once), dropped
	Levels     int // gauge points stored
}

// SourceResult is a Collector source's export as rows, and the series' new last points.
type SourceResult struct {
	Batch  telemetry.Batch
	Series []telemetry.SeriesPoint
	Stats  SourceStats
}

// memorySnap: a Collector stamps each scraper's points with its own clock reading, so the
// memory and paging scrapers of one collection are milliseconds apart; their levels share one
// memory row when they are this close (collection intervals are seconds).
const memorySnap = time.Second

// Apply turns the plan into rows against the series' last points (last, by key): each counter
// point becomes the delta since the previous point of its series, the first point of a series
// and the first after a restart become baselines, points at or before a series' last point are
// dropped as duplicates. It is pure: the store calls it inside the transaction that read last and
// writes the result, so two gateways never take a delta from the same point.
func (p *SourcePlan) Apply(last map[string]telemetry.SeriesPoint) (SourceResult, error) {
	points := slices.Clone(p.points)
	slices.SortStableFunc(points, func(a, b sourcePoint) int { return cmp.Compare(a.time, b.time) })
	state := make(map[string]telemetry.SeriesPoint, len(points))
	var result SourceResult
	var kept []sourcePoint
	for _, point := range points {
		prev, seen := last[point.key]
		if now, ok := state[point.key]; ok {
			prev, seen = now, true
		}
		if seen && int64(point.time) <= prev.TimeUnixNano {
			result.Stats.Duplicates++
			continue
		}
		state[point.key] = telemetry.SeriesPoint{Key: point.key, StartUnixNano: int64(point.start), TimeUnixNano: int64(point.time),
			IsDouble: point.isDouble, Int: point.i, Double: point.d}
		if !point.spec.counter {
			kept = append(kept, point)
			continue
		}
		switch {
		case !seen:
			result.Stats.Baselines++
		case prev.StartUnixNano != int64(point.start) || prev.IsDouble != point.isDouble || decreased(prev, point):
			result.Stats.Restarts++
		default:
			point.start = pcommon.Timestamp(prev.TimeUnixNano)
			point.i -= prev.Int
			point.d -= prev.Double
			kept = append(kept, point)
			result.Stats.Deltas++
		}
	}
	kept = withoutLoneDiskLevels(kept)
	kept = snapMemoryTimes(kept)
	kept, err := sumDevices(kept)
	if err != nil {
		return SourceResult{}, err
	}
	for _, point := range kept {
		if !point.spec.counter {
			result.Stats.Levels++
		}
	}
	rm := p.agentShape(kept)
	batch, err := mapRows(rm, map[string]int{})
	if err != nil {
		return SourceResult{}, err
	}
	result.Batch = batch
	for _, s := range state {
		result.Series = append(result.Series, s)
	}
	slices.SortFunc(result.Series, func(a, b telemetry.SeriesPoint) int { return cmp.Compare(a.Key, b.Key) })
	return result, nil
}

func decreased(prev telemetry.SeriesPoint, point sourcePoint) bool {
	if point.isDouble {
		return point.d < prev.Double
	}
	return point.i < prev.Int
}

// withoutLoneDiskLevels drops a disk level (pending operations) whose device has no delta at its
// time: a disk_io row needs an interval, and a baseline scrape has none.
func withoutLoneDiskLevels(points []sourcePoint) []sourcePoint {
	type at struct {
		device string
		time   pcommon.Timestamp
	}
	withDelta := map[at]bool{}
	for _, p := range points {
		if p.spec.counter {
			withDelta[at{p.device, p.time}] = true
		}
	}
	return slices.DeleteFunc(points, func(p sourcePoint) bool {
		return p.spec.byDevice && !p.spec.counter && !withDelta[at{p.device, p.time}]
	})
}

// snapMemoryTimes moves the memory family's levels (no device) of one collection onto one time,
// the latest of the cluster, so they fill one memory row.
func snapMemoryTimes(points []sourcePoint) []sourcePoint {
	var times []pcommon.Timestamp
	for _, p := range points {
		if !p.spec.byDevice && !p.spec.counter {
			times = append(times, p.time)
		}
	}
	slices.Sort(times)
	snapped := map[pcommon.Timestamp]pcommon.Timestamp{}
	for i := 0; i < len(times); {
		j := i
		for j+1 < len(times) && time.Duration(times[j+1]-times[i]) < memorySnap {
			j++
		}
		for k := i; k <= j; k++ {
			snapped[times[k]] = times[j]
		}
		i = j + 1
	}
	for i, p := range points {
		if to, ok := snapped[p.time]; ok && !p.spec.byDevice && !p.spec.counter {
			points[i].time = to
		}
	}
	return points
}

// sumDevices adds the levels of every device (swap areas) into one point per metric, state and
// time, as the agent reports swap for the whole host.
func sumDevices(points []sourcePoint) ([]sourcePoint, error) {
	type at struct {
		target, state string
		time          pcommon.Timestamp
	}
	sums := map[at]int{}
	var out []sourcePoint
	for _, p := range points {
		if !p.spec.sumDevices {
			out = append(out, p)
			continue
		}
		key := at{p.spec.target, p.state, p.time}
		i, ok := sums[key]
		if !ok {
			sums[key] = len(out)
			p.device = ""
			out = append(out, p)
			continue
		}
		if out[i].isDouble != p.isDouble {
			return nil, fmt.Errorf("metric %s mixes int and double points at %s", p.spec.target, p.time)
		}
		out[i].i += p.i
		out[i].d += p.d
	}
	return out, nil
}

// agentShape writes the kept points as the agent would have sent them: counters as delta Sums,
// levels as Gauges, under the agent's names, units and attributes. A source reports no
// spindle.agent.capabilities, so the server shows every eBPF and agent-only capability missing.
func (p *SourcePlan) agentShape(points []sourcePoint) *otlp.ResourceMetrics {
	rm := &otlp.ResourceMetrics{Resource: p.resource}
	if _, ok := rm.Resource.Get(CapabilitiesAttribute); !ok {
		rm.Resource = append(slices.Clip(rm.Resource), otlp.KeyValue{Key: CapabilitiesAttribute, Value: otlp.SliceValue([]otlp.Value{})})
	}
	var metrics []otlp.Metric
	byTarget := map[string]int{} // index in metrics
	for _, point := range points {
		i, ok := byTarget[point.spec.target]
		if !ok {
			m := otlp.Metric{Name: point.spec.target, Unit: agentUnit(point.spec.target), Type: pmetric.MetricTypeGauge}
			if point.spec.counter {
				m.Type, m.Temporality, m.Monotonic = pmetric.MetricTypeSum, pmetric.AggregationTemporalityDelta, true
			}
			i = len(metrics)
			metrics = append(metrics, m)
			byTarget[point.spec.target] = i
		}
		dp := otlp.NumberPoint{Time: point.time, ValueType: pmetric.NumberDataPointValueTypeInt, Int: point.i}
		if point.spec.counter {
			dp.Start = point.start
		}
		if point.isDouble {
			dp.ValueType, dp.Int, dp.Double = pmetric.NumberDataPointValueTypeDouble, 0, point.d
		}
		str := func(key, value string) otlp.KeyValue {
			return otlp.KeyValue{Key: key, Value: otlp.Value{Type: pcommon.ValueTypeStr, Str: value}}
		}
		if point.device != "" {
			dp.Attributes = append(dp.Attributes, str(deviceAttribute, point.device))
		}
		if point.direction != "" {
			dp.Attributes = append(dp.Attributes, str("disk.io.direction", point.direction))
		}
		if point.state != "" {
			dp.Attributes = append(dp.Attributes, str(point.spec.stateKey, point.state))
		}
		metrics[i].Numbers = append(metrics[i].Numbers, dp)
	}
	rm.ScopeMetrics = []otlp.ScopeMetrics{{Metrics: metrics}}
	return rm
}

func agentUnit(target string) string {
	if spec, ok := diskMetrics[target]; ok {
		return spec.unit
	}
	return "By" // every memory metric
}
