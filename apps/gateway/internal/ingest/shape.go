package ingest

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
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
func points(m *otlp.Metric, want shape, unit string) ([]otlp.NumberPoint, error) {
	if m.Unit != "" && m.Unit != unit {
		return []otlp.NumberPoint{}, fmt.Errorf("metric %s has unit %q; Spindle expects %q (docs/metrics.md)", m.Name, m.Unit, unit)
	}
	switch want {
	case deltaCounter:
		if m.Type != pmetric.MetricTypeSum {
			return []otlp.NumberPoint{}, fmt.Errorf("metric %s is a %s; Spindle expects a Sum with delta temporality", m.Name, m.Type)
		}
		switch m.Temporality {
		case pmetric.AggregationTemporalityDelta:
			return m.Numbers, nil
		case pmetric.AggregationTemporalityCumulative:
			return []otlp.NumberPoint{}, fmt.Errorf("metric %s has cumulative temporality; Spindle stores per-interval deltas, so export it with delta temporality", m.Name)
		default:
			return []otlp.NumberPoint{}, fmt.Errorf("metric %s has no aggregation temporality; export it with delta temporality", m.Name)
		}
	case level:
		switch {
		case m.Type == pmetric.MetricTypeGauge:
			return m.Numbers, nil
		case m.Type == pmetric.MetricTypeSum && !m.Monotonic &&
			m.Temporality == pmetric.AggregationTemporalityCumulative:
			return m.Numbers, nil
		}
		return []otlp.NumberPoint{}, fmt.Errorf("metric %s is a %s; Spindle expects a Gauge (or a cumulative non-monotonic Sum)", m.Name, describe(m))
	}
	return []otlp.NumberPoint{}, fmt.Errorf("metric %s: unknown shape %d", m.Name, want)
}

// eachPoint calls add for every recorded point of m after checking m's shape and unit, and
// names the metric and point in any error add returns.
func eachPoint(m *otlp.Metric, want shape, unit string, add func(*otlp.NumberPoint) error) error {
	dps, err := points(m, want, unit)
	if err != nil {
		return err
	}
	for i := 0; i < len(dps); i++ {
		dp := &dps[i]
		if dp.NoRecordedValue() {
			continue
		}
		if err := add(dp); err != nil {
			return fmt.Errorf("metric %s point %d: %w", m.Name, i, err)
		}
	}
	return nil
}

func describe(m *otlp.Metric) string {
	if m.Type != pmetric.MetricTypeSum {
		return m.Type.String()
	}
	monotonic := "non-monotonic"
	if m.Monotonic {
		monotonic = "monotonic"
	}
	return fmt.Sprintf("%s %s Sum", monotonic, m.Temporality)
}

// stringAttribute reads a required string attribute of a point.
// intAttribute reads an integer attribute (OTLP int_value).
func intAttribute(dp *otlp.NumberPoint, key string) (int64, error) {
	v, ok := dp.Attributes.Get(key)
	if !ok || v.Type != pcommon.ValueTypeInt {
		return 0, fmt.Errorf("the point has no integer %s attribute", key)
	}
	return v.Int, nil
}

func stringAttribute(dp *otlp.NumberPoint, key string) (string, error) {
	v, ok := dp.Attributes.Get(key)
	if !ok || v.Str == "" {
		return "", fmt.Errorf("the point has no %s attribute", key)
	}
	return v.Str, nil
}
