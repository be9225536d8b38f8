package otlpfixture

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Filesystem is one mount point's statfs answer, sent as the agent's filesystem collector does.
type Filesystem struct {
	Mountpoint, Device, Type   string
	Size, Used, Free, Reserved int64
}

// AddSpace adds file-system gauges and, when spool is not nil, the spool's (bytes, batches), to
// resource index of md, stamped with the sample's interval as the agent stamps its gauges.
func AddSpace(md pmetric.Metrics, index int, s Sample, filesystems []Filesystem, spool *[2]int64) {
	sm := md.ResourceMetrics().At(index).ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("github.com/spindle-io/spindle/agent")
	start, end := pcommon.NewTimestampFromTime(s.Start), pcommon.NewTimestampFromTime(s.End)
	gauge := func(name, unit string) pmetric.NumberDataPointSlice {
		m := sm.Metrics().AppendEmpty()
		m.SetName(name)
		m.SetUnit(unit)
		return m.SetEmptyGauge().DataPoints()
	}
	point := func(points pmetric.NumberDataPointSlice, value int64, attrs map[string]string) {
		dp := points.AppendEmpty()
		dp.SetStartTimestamp(start)
		dp.SetTimestamp(end)
		dp.SetIntValue(value)
		for k, v := range attrs {
			dp.Attributes().PutStr(k, v)
		}
	}
	if len(filesystems) > 0 {
		limit, usage := gauge("system.filesystem.limit", "By"), gauge("system.filesystem.usage", "By")
		for _, f := range filesystems {
			attrs := map[string]string{"system.device": f.Device, "system.filesystem.mountpoint": f.Mountpoint, "system.filesystem.type": f.Type}
			point(limit, f.Size, attrs)
			for state, v := range map[string]int64{"used": f.Used, "free": f.Free, "reserved": f.Reserved} {
				withState := map[string]string{"system.filesystem.state": state}
				for k, v := range attrs {
					withState[k] = v
				}
				point(usage, v, withState)
			}
		}
	}
	if spool != nil {
		point(gauge("spindle.agent.spool.size", "By"), spool[0], nil)
		point(gauge("spindle.agent.spool.batches", "{batch}"), spool[1], nil)
	}
}
