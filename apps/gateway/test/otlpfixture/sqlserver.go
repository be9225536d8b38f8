package otlpfixture

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// SQLServer is one instance's statistics for one interval, sent as the agent's sqlserver
// collector does: Batches nil on the first interval (only the baseline was read), HitRatio nil
// while the instance has read no page.
type SQLServer struct {
	Instance    string
	Batches     *int64
	HitRatio    *float64
	LifeSeconds int64
}

// AddSQLServer adds the instances' points to resource index of md, stamped with the sample's
// interval as the agent stamps its counters and gauges.
func AddSQLServer(md pmetric.Metrics, index int, s Sample, instances ...SQLServer) {
	sm := md.ResourceMetrics().At(index).ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("github.com/spindle-io/spindle/agent")
	start, end := pcommon.NewTimestampFromTime(s.Start), pcommon.NewTimestampFromTime(s.End)
	metric := func(name, unit string) pmetric.Metric {
		m := sm.Metrics().AppendEmpty()
		m.SetName(name)
		m.SetUnit(unit)
		return m
	}
	batches := metric("spindle.db.sqlserver.batch_requests", "{request}").SetEmptySum()
	batches.SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
	batches.SetIsMonotonic(true)
	ratio := metric("spindle.db.sqlserver.buffer_cache_hit_ratio", "1").SetEmptyGauge()
	life := metric("spindle.db.sqlserver.page_life_expectancy", "s").SetEmptyGauge()
	point := func(points pmetric.NumberDataPointSlice, instance string) pmetric.NumberDataPoint {
		dp := points.AppendEmpty()
		dp.SetStartTimestamp(start)
		dp.SetTimestamp(end)
		dp.Attributes().PutStr("spindle.db.sqlserver.instance", instance)
		return dp
	}
	for _, in := range instances {
		if in.Batches != nil {
			point(batches.DataPoints(), in.Instance).SetIntValue(*in.Batches)
		}
		if in.HitRatio != nil {
			point(ratio.DataPoints(), in.Instance).SetDoubleValue(*in.HitRatio)
		}
		point(life.DataPoints(), in.Instance).SetIntValue(in.LifeSeconds)
	}
}
