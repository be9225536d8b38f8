package ingest

import (
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// A Collector as a source (docs/agent-protocol.md, "OpenTelemetry Collector as a source"): a
// stock OpenTelemetry Collector's hostmetrics receiver sends cumulative counters under its own
// attribute names, without spindle.batch.seq. sourceMetrics says how each of its metrics becomes
// the agent's shape, so the agent's mapping (diskio.go, memory.go) stores it: counters are turned
// into deltas against the series' last point (SourcePlan.Apply), attributes are renamed.

// sourceMetric is how one metric of a Collector source maps onto the agent's metric.
type sourceMetric struct {
	target  string
	counter bool     // a cumulative monotonic Sum; otherwise a level (Gauge or non-monotonic Sum)
	units   []string // the Collector's unit and the agent's, both accepted
	// byDevice: the point names a disk (device or system.device); byDirection: read or write.
	byDevice, byDirection bool
	// stateKey: the attribute the agent's metric splits by (the source sends state or the same
	// name); states maps the Collector's state names onto the agent's where they differ.
	stateKey string
	states   map[string]string
	// sumDevices adds the points of every device (swap areas) into one value per state and time.
	sumDevices bool
}

var (
	operations = []string{"{operations}", "{operation}"}
	bytesUnit  = []string{"By"}
	seconds    = []string{"s"}
)

// sourceMetrics: hostmetrics' disk, memory and paging scrapers (their metadata.yaml, contrib
// v0.162.0), plus the agent's own names for the two metrics that differ.
var sourceMetrics = map[string]sourceMetric{
	"system.disk.io":                 {target: "system.disk.io", counter: true, units: bytesUnit, byDevice: true, byDirection: true},
	"system.disk.operations":         {target: "system.disk.operations", counter: true, units: operations, byDevice: true, byDirection: true},
	"system.disk.merged":             {target: "system.disk.merged", counter: true, units: operations, byDevice: true, byDirection: true},
	"system.disk.operation_time":     {target: "system.disk.operation_time", counter: true, units: seconds, byDevice: true, byDirection: true},
	"system.disk.io_time":            {target: "system.disk.io_time", counter: true, units: seconds, byDevice: true},
	"system.disk.weighted_io_time":   {target: "spindle.disk.weighted_io_time", counter: true, units: seconds, byDevice: true},
	"system.disk.pending_operations": {target: "spindle.disk.pending_operations", units: operations, byDevice: true},
	"system.memory.usage": {target: "system.memory.usage", units: bytesUnit, stateKey: "system.memory.state",
		states: map[string]string{"buffered": "buffers"}},
	"system.memory.limit":           {target: "system.memory.limit", units: bytesUnit},
	"system.linux.memory.available": {target: "system.memory.linux.available", units: bytesUnit},
	"system.linux.memory.dirty":     {target: "spindle.memory.dirty", units: bytesUnit},
	"system.paging.usage":           {target: "system.paging.usage", units: bytesUnit, stateKey: "system.paging.state", sumDevices: true},
}

// maxSeriesKeyLength matches the column's CHECK; a longer key is refused, not cut, so two
// series can never share one.
const maxSeriesKeyLength = 1024

// sourcePoint is one point of a Collector source, validated, with its series key.
type sourcePoint struct {
	spec          sourceMetric
	key           string
	device, state string // in the agent's names; direction travels in attrs
	direction     string
	start, time   pcommon.Timestamp
	isDouble      bool
	i             int64
	d             float64
}

// SourcePlan is a validated Collector-source export of one server, before the series' stored
// points turn its counters into deltas.
type SourcePlan struct {
	resource      otlp.Attributes
	points        []sourcePoint
	IgnoredPoints map[string]int
}

// IsSourceExport reports whether an export comes from a Collector source: it has resources and
// none carries spindle.batch.seq. An export where only some do goes to Map, which refuses it.
func IsSourceExport(md *otlp.Metrics) bool {
	if len(md.ResourceMetrics) == 0 {
		return false
	}
	for i := range md.ResourceMetrics {
		if _, ok := md.ResourceMetrics[i].Resource.Get(BatchSeqAttribute); ok {
			return false
		}
	}
	return true
}

// PlanSource validates a Collector-source export: every known metric's type, unit and attributes.
// All ResourceMetrics must describe the one server the credential names; their resource
// attributes are taken from the first.
func PlanSource(md *otlp.Metrics) (*SourcePlan, error) {
	plan := &SourcePlan{IgnoredPoints: map[string]int{}}
	if len(md.ResourceMetrics) > 0 {
		plan.resource = md.ResourceMetrics[0].Resource
	}
	for r := range md.ResourceMetrics {
		scopes := md.ResourceMetrics[r].ScopeMetrics
		for s := range scopes {
			metrics := scopes[s].Metrics
			for m := range metrics {
				metric := &metrics[m]
				spec, ok := sourceMetrics[metric.Name]
				if !ok {
					plan.IgnoredPoints[metric.Name] += metric.PointCount()
					continue
				}
				if err := plan.add(metric, spec); err != nil {
					return nil, fmt.Errorf("resource metrics %d: metric %s: %w", r, metric.Name, err)
				}
			}
		}
	}
	return plan, nil
}

func (p *SourcePlan) add(m *otlp.Metric, spec sourceMetric) error {
	if !slices.Contains(spec.units, m.Unit) {
		return fmt.Errorf("unit %q; expected %q (hostmetrics' metadata.yaml)", m.Unit, spec.units[0])
	}
	var dps []otlp.NumberPoint
	switch {
	case spec.counter && m.Type == pmetric.MetricTypeSum && m.Monotonic &&
		m.Temporality == pmetric.AggregationTemporalityCumulative:
		dps = m.Numbers
	case spec.counter:
		return fmt.Errorf("is a %s, but %s is missing: an agent's export must carry its batch sequence, and a Collector source (no sequence) must send counters as cumulative monotonic Sums", describe(m), BatchSeqAttribute)
	case m.Type == pmetric.MetricTypeGauge:
		dps = m.Numbers
	case m.Type == pmetric.MetricTypeSum && !m.Monotonic:
		dps = m.Numbers
	default:
		return fmt.Errorf("is a %s; expected a Gauge or a non-monotonic Sum", describe(m))
	}
	for i := 0; i < len(dps); i++ {
		dp := &dps[i]
		if dp.NoRecordedValue() {
			continue
		}
		point, err := newSourcePoint(m.Name, spec, dp)
		if err != nil {
			return fmt.Errorf("point %d: %w", i, err)
		}
		p.points = append(p.points, point)
	}
	return nil
}

func newSourcePoint(name string, spec sourceMetric, dp *otlp.NumberPoint) (sourcePoint, error) {
	point := sourcePoint{spec: spec, start: dp.Start, time: dp.Time}
	if point.time == 0 {
		return point, fmt.Errorf("the point has no timestamp")
	}
	if spec.counter && point.start == 0 {
		return point, fmt.Errorf("the cumulative point has no start time, so a restart could not be told from a reset")
	}
	switch dp.ValueType {
	case pmetric.NumberDataPointValueTypeInt:
		point.i = dp.Int
	case pmetric.NumberDataPointValueTypeDouble:
		point.isDouble, point.d = true, dp.Double
	default:
		return point, fmt.Errorf("the point has no value")
	}
	attrs := dp.Attributes
	either := func(short, long string) string {
		if v, ok := attrs.Get(long); ok {
			return v.AsString()
		}
		if v, ok := attrs.Get(short); ok {
			return v.AsString()
		}
		return ""
	}
	if spec.byDevice {
		if point.device = either("device", deviceAttribute); point.device == "" {
			return point, fmt.Errorf("the point has no device attribute")
		}
	}
	if spec.byDirection {
		point.direction = either("direction", "disk.io.direction")
		if point.direction != "read" && point.direction != "write" {
			return point, fmt.Errorf("direction is %q; expected \"read\" or \"write\"", point.direction)
		}
	}
	if spec.stateKey != "" {
		if point.state = either("state", spec.stateKey); point.state == "" {
			return point, fmt.Errorf("the point has no state attribute")
		}
		if renamed, ok := spec.states[point.state]; ok {
			point.state = renamed
		}
	}
	point.key = seriesKey(name, attrs)
	if len(point.key) > maxSeriesKeyLength {
		return point, fmt.Errorf("its attributes are longer than %d bytes", maxSeriesKeyLength)
	}
	return point, nil
}

// seriesKey names a series: the metric and every point attribute, sorted, so the same series
// has the same key however an encoder orders the attributes.
func seriesKey(name string, attrs otlp.Attributes) string {
	pairs := make([]string, 0, len(attrs))
	for _, kv := range attrs {
		pairs = append(pairs, kv.Key+"="+kv.Value.AsString())
	}
	slices.Sort(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// Keys are the series the plan touches, for the store to read their last points.
func (p *SourcePlan) Keys() []string {
	keys := make([]string, 0, len(p.points))
	for _, point := range p.points {
		keys = append(keys, point.key)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
