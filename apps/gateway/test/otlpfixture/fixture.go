// Package otlpfixture builds OTLP metric exports shaped like the agent's (docs/metrics.md) with
// pdata, for tests. Tests change single points afterwards through Metric.
package otlpfixture

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
)

// Disk is one device's deltas over a sample's interval.
type Disk struct {
	Device                       string
	ReadOps, WriteOps            int64
	ReadBytes, WriteBytes        int64
	ReadMerged, WriteMerged      int64
	ReadSeconds, WriteSeconds    float64
	IOSeconds, WeightedIOSeconds float64
	InProgress                   int64
}

// Memory is one memory snapshot.
type Memory struct {
	Limit, Available, Free, Cached, Buffers, Dirty, SwapUsed, SwapFree int64
}

// Sample is one ResourceMetrics: one agent batch covering [Start, End].
type Sample struct {
	Seq        int64
	Start, End time.Time
	Disks      []Disk
	Memory     *Memory
	// Attributes are added to (or override) the default resource attributes.
	Attributes map[string]string
	// NoSeq leaves out spindle.batch.seq.
	NoSeq bool
}

// DefaultAttributes are the resource attributes every fixture batch carries.
var DefaultAttributes = map[string]string{
	"service.name":      "spindle-agent",
	"service.version":   "0.1.0",
	"host.name":         "db01",
	"host.arch":         "amd64",
	"os.type":           "linux",
	"os.description":    "Debian GNU/Linux 12 (bookworm)",
	"spindle.os.kernel": "6.1.0-18-amd64",
}

// Build returns an export with one ResourceMetrics per sample.
func Build(samples ...Sample) pmetric.Metrics {
	md := pmetric.NewMetrics()
	for _, s := range samples {
		rm := md.ResourceMetrics().AppendEmpty()
		attrs := rm.Resource().Attributes()
		for k, v := range DefaultAttributes {
			attrs.PutStr(k, v)
		}
		for k, v := range s.Attributes {
			attrs.PutStr(k, v)
		}
		if !s.NoSeq {
			attrs.PutInt("spindle.batch.seq", s.Seq)
		}
		sm := rm.ScopeMetrics().AppendEmpty()
		sm.Scope().SetName("github.com/spindle-io/spindle/agent")
		b := builder{metrics: sm.Metrics(), start: pcommon.NewTimestampFromTime(s.Start), end: pcommon.NewTimestampFromTime(s.End)}
		if len(s.Disks) > 0 {
			b.disks(s.Disks)
		}
		if s.Memory != nil {
			b.memory(*s.Memory)
		}
	}
	return md
}

type builder struct {
	metrics    pmetric.MetricSlice
	start, end pcommon.Timestamp
}

func (b builder) delta(name, unit string) pmetric.NumberDataPointSlice {
	m := b.metrics.AppendEmpty()
	m.SetName(name)
	m.SetUnit(unit)
	sum := m.SetEmptySum()
	sum.SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
	sum.SetIsMonotonic(true)
	return sum.DataPoints()
}

func (b builder) gauge(name, unit string) pmetric.NumberDataPointSlice {
	m := b.metrics.AppendEmpty()
	m.SetName(name)
	m.SetUnit(unit)
	return m.SetEmptyGauge().DataPoints()
}

func (b builder) point(dps pmetric.NumberDataPointSlice, delta bool, attrs map[string]string) pmetric.NumberDataPoint {
	dp := dps.AppendEmpty()
	if delta {
		dp.SetStartTimestamp(b.start)
	}
	dp.SetTimestamp(b.end)
	for k, v := range attrs {
		dp.Attributes().PutStr(k, v)
	}
	return dp
}

func (b builder) disks(disks []Disk) {
	ops := b.delta("system.disk.operations", "{operation}")
	io := b.delta("system.disk.io", "By")
	merged := b.delta("system.disk.merged", "{operation}")
	opTime := b.delta("system.disk.operation_time", "s")
	ioTime := b.delta("system.disk.io_time", "s")
	weighted := b.delta("spindle.disk.weighted_io_time", "s")
	pending := b.gauge("spindle.disk.pending_operations", "{operation}")
	for _, d := range disks {
		read := map[string]string{"system.device": d.Device, "disk.io.direction": "read"}
		write := map[string]string{"system.device": d.Device, "disk.io.direction": "write"}
		device := map[string]string{"system.device": d.Device}
		b.point(ops, true, read).SetIntValue(d.ReadOps)
		b.point(ops, true, write).SetIntValue(d.WriteOps)
		b.point(io, true, read).SetIntValue(d.ReadBytes)
		b.point(io, true, write).SetIntValue(d.WriteBytes)
		b.point(merged, true, read).SetIntValue(d.ReadMerged)
		b.point(merged, true, write).SetIntValue(d.WriteMerged)
		b.point(opTime, true, read).SetDoubleValue(d.ReadSeconds)
		b.point(opTime, true, write).SetDoubleValue(d.WriteSeconds)
		b.point(ioTime, true, device).SetDoubleValue(d.IOSeconds)
		b.point(weighted, true, device).SetDoubleValue(d.WeightedIOSeconds)
		b.point(pending, false, device).SetIntValue(d.InProgress)
	}
}

func (b builder) memory(m Memory) {
	b.point(b.gauge("system.memory.limit", "By"), false, nil).SetIntValue(m.Limit)
	b.point(b.gauge("system.memory.linux.available", "By"), false, nil).SetIntValue(m.Available)
	usage := b.gauge("system.memory.usage", "By")
	b.point(usage, false, map[string]string{"system.memory.state": "free"}).SetIntValue(m.Free)
	b.point(usage, false, map[string]string{"system.memory.state": "cached"}).SetIntValue(m.Cached)
	b.point(usage, false, map[string]string{"system.memory.state": "buffers"}).SetIntValue(m.Buffers)
	b.point(b.gauge("spindle.memory.dirty", "By"), false, nil).SetIntValue(m.Dirty)
	paging := b.gauge("system.paging.usage", "By")
	b.point(paging, false, map[string]string{"system.paging.state": "used"}).SetIntValue(m.SwapUsed)
	b.point(paging, false, map[string]string{"system.paging.state": "free"}).SetIntValue(m.SwapFree)
}

// Metric returns the first metric with this name in the given ResourceMetrics; it panics when
// there is none, which in a test is a broken fixture.
func Metric(md pmetric.Metrics, resourceIndex int, name string) pmetric.Metric {
	scopes := md.ResourceMetrics().At(resourceIndex).ScopeMetrics()
	for s := 0; s < scopes.Len(); s++ {
		metrics := scopes.At(s).Metrics()
		for m := 0; m < metrics.Len(); m++ {
			if metrics.At(m).Name() == name {
				return metrics.At(m)
			}
		}
	}
	panic("otlpfixture: no metric " + name)
}

// Without removes the named metrics from every ResourceMetrics, as an agent that does not
// measure them (an OS without merge counters, a host without swap) would send the export.
func Without(md pmetric.Metrics, names ...string) pmetric.Metrics {
	drop := map[string]bool{}
	for _, name := range names {
		drop[name] = true
	}
	for r := 0; r < md.ResourceMetrics().Len(); r++ {
		scopes := md.ResourceMetrics().At(r).ScopeMetrics()
		for s := 0; s < scopes.Len(); s++ {
			scopes.At(s).Metrics().RemoveIf(func(m pmetric.Metric) bool { return drop[m.Name()] })
		}
	}
	return md
}

// Proto encodes an export as the protobuf body of POST /v1/metrics.
func Proto(md pmetric.Metrics) []byte {
	body, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	if err != nil {
		panic(err)
	}
	return body
}

// JSON encodes an export as the OTLP/JSON body of POST /v1/metrics.
func JSON(md pmetric.Metrics) []byte {
	body, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalJSON()
	if err != nil {
		panic(err)
	}
	return body
}
