package ingest

import (
	"fmt"
	"math"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// Values are checked here once: telemetry columns are non-negative integers, and a float that
// is NaN, infinite or beyond int64 would otherwise fail in the database or, worse, be stored.

const maxExactInt64Float = float64(math.MaxInt64)

// countValue reads a non-negative count (operations, bytes) from an int or double point.
func countValue(dp *otlp.NumberPoint) (int64, error) {
	if dp.ValueType == pmetric.NumberDataPointValueTypeInt {
		v := dp.Int
		if v < 0 {
			return 0, fmt.Errorf("value %d is negative", v)
		}
		return v, nil
	}
	return roundedNonNegative(dp, 1)
}

// millisFromSecondsValue reads a duration sent in seconds (OTLP unit "s") as whole milliseconds.
func millisFromSecondsValue(dp *otlp.NumberPoint) (int64, error) {
	if dp.ValueType == pmetric.NumberDataPointValueTypeInt {
		v := dp.Int
		if v < 0 {
			return 0, fmt.Errorf("value %d is negative", v)
		}
		if v > math.MaxInt64/1000 {
			return 0, fmt.Errorf("value %d s is too large", v)
		}
		return v * 1000, nil
	}
	return roundedNonNegative(dp, 1000)
}

func roundedNonNegative(dp *otlp.NumberPoint, scale float64) (int64, error) {
	if dp.ValueType != pmetric.NumberDataPointValueTypeDouble {
		return 0, fmt.Errorf("the point has no value")
	}
	v := dp.Double
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("value %v is not a finite number", v)
	}
	if v < 0 {
		return 0, fmt.Errorf("value %v is negative", v)
	}
	scaled := math.Round(v * scale)
	if scaled >= maxExactInt64Float {
		return 0, fmt.Errorf("value %v is too large", v)
	}
	return int64(scaled), nil
}

// microsFromSecondsValue reads a duration sent in seconds (OTLP unit "s") as whole microseconds.
func microsFromSecondsValue(dp *otlp.NumberPoint) (int64, error) {
	if dp.ValueType == pmetric.NumberDataPointValueTypeInt {
		v := dp.Int
		if v < 0 {
			return 0, fmt.Errorf("value %d is negative", v)
		}
		if v > math.MaxInt64/1_000_000 {
			return 0, fmt.Errorf("value %d s is too large", v)
		}
		return v * 1_000_000, nil
	}
	return roundedNonNegative(dp, 1_000_000)
}

// floatValue reads a point's value as a float, from an int or a double point.
func floatValue(dp *otlp.NumberPoint) (float64, error) {
	switch dp.ValueType {
	case pmetric.NumberDataPointValueTypeDouble:
		return dp.Double, nil
	case pmetric.NumberDataPointValueTypeInt:
		return float64(dp.Int), nil
	}
	return 0, fmt.Errorf("the point has no value")
}
