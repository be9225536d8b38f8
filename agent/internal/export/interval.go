package export

import (
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// setInterval stamps every point with the batch's interval. The SDK takes a fresh clock
// reading per instrument, so points of one batch would differ by microseconds; the gateway
// joins a device's metrics into one row, and interval_seconds must be the same for all of
// them, so every point gets the tick's boundaries.
func setInterval(rm *metricdata.ResourceMetrics, from, to time.Time) {
	for i := range rm.ScopeMetrics {
		for j := range rm.ScopeMetrics[i].Metrics {
			switch data := rm.ScopeMetrics[i].Metrics[j].Data.(type) {
			case metricdata.Sum[int64]:
				stamp(data.DataPoints, from, to)
			case metricdata.Sum[float64]:
				stamp(data.DataPoints, from, to)
			case metricdata.Gauge[int64]:
				stamp(data.DataPoints, from, to)
			case metricdata.Gauge[float64]:
				stamp(data.DataPoints, from, to)
			case metricdata.Histogram[float64]:
				stampHistogram(data.DataPoints, from, to)
			}
		}
	}
}

// stamp writes through the slice: DataPoints shares its backing array with rm.
func stamp[N int64 | float64](points []metricdata.DataPoint[N], from, to time.Time) {
	for i := range points {
		points[i].StartTime, points[i].Time = from, to
	}
}

func pointCount(rm *metricdata.ResourceMetrics) int {
	n := 0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				n += len(data.DataPoints)
			case metricdata.Sum[float64]:
				n += len(data.DataPoints)
			case metricdata.Gauge[int64]:
				n += len(data.DataPoints)
			case metricdata.Gauge[float64]:
				n += len(data.DataPoints)
			case metricdata.Histogram[float64]:
				n += len(data.DataPoints)
			}
		}
	}
	return n
}
