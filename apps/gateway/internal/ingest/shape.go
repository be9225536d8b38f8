package ingest

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

// shape is how a known metric must travel.
type shape int

const (
	// deltaCounter: a Sum with delta temporality; each point covers [start, time].
	deltaCounter shape = iota + 1
	// level: a Gauge, or a non-monotonic cumulative Sum, which is how an OpenTelemetry
	// UpDownCounter (the semantic-convention instrument for system.memory.usage) reports a level.
	level
)

// points returns the metric's data points after checking its type, temporality and unit.
func points(m pmetric.Metric, want shape, unit string) (pmetric.NumberDataPointSlice, error) {
	if m.Unit() != "" && m.Unit() != unit {
		return pmetric.NumberDataPointSlice{}, fmt.Errorf("metric %s has unit %q; Spindle expects %q (docs/metrics.md)", m.Name(), m.Unit(), unit)
	}
	switch want {
	case deltaCounter:
		if m.Type() != pmetric.MetricTypeSum {
			return pmetric.NumberDataPointSlice{}, fmt.Errorf("metric %s is a %s; Spindle expects a Sum with delta temporality", m.Name(), m.Type())
		}
		switch m.Sum().AggregationTemporality() {
		case pmetric.AggregationTemporalityDelta:
			return m.Sum().DataPoints(), nil
		case pmetric.AggregationTemporalityCumulative:
			return pmetric.NumberDataPointSlice{}, fmt.Errorf("metric %s has cumulative temporality; Spindle stores per-interval deltas, so export it with delta temporality", m.Name())
		default:
			return pmetric.NumberDataPointSlice{}, fmt.Errorf("metric %s has no aggregation temporality; export it with delta temporality", m.Name())
		}
	case level:
		switch {
		case m.Type() == pmetric.MetricTypeGauge:
			return m.Gauge().DataPoints(), nil
		case m.Type() == pmetric.MetricTypeSum && !m.Sum().IsMonotonic() &&
			m.Sum().AggregationTemporality() == pmetric.AggregationTemporalityCumulative:
			return m.Sum().DataPoints(), nil
		}
		return pmetric.NumberDataPointSlice{}, fmt.Errorf("metric %s is a %s; Spindle expects a Gauge (or a cumulative non-monotonic Sum)", m.Name(), describe(m))
	}
	return pmetric.NumberDataPointSlice{}, fmt.Errorf("metric %s: unknown shape %d", m.Name(), want)
}

// eachPoint calls add for every recorded point of m after checking m's shape and unit, and
// names the metric and point in any error add returns.
func eachPoint(m pmetric.Metric, want shape, unit string, add func(pmetric.NumberDataPoint) error) error {
	dps, err := points(m, want, unit)
	if err != nil {
		return err
	}
	for i := 0; i < dps.Len(); i++ {
		dp := dps.At(i)
		if dp.Flags().NoRecordedValue() {
			continue
		}
		if err := add(dp); err != nil {
			return fmt.Errorf("metric %s point %d: %w", m.Name(), i, err)
		}
	}
	return nil
}

func describe(m pmetric.Metric) string {
	if m.Type() != pmetric.MetricTypeSum {
		return m.Type().String()
	}
	monotonic := "non-monotonic"
	if m.Sum().IsMonotonic() {
		monotonic = "monotonic"
	}
	return fmt.Sprintf("%s %s Sum", monotonic, m.Sum().AggregationTemporality())
}

// stringAttribute reads a required string attribute of a point.
func stringAttribute(dp pmetric.NumberDataPoint, key string) (string, error) {
	v, ok := dp.Attributes().Get(key)
	if !ok || v.Str() == "" {
		return "", fmt.Errorf("the point has no %s attribute", key)
	}
	return v.Str(), nil
}
