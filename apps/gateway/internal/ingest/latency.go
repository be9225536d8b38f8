package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// latencyMetric is spindle.disk.io.latency: its unit and the only explicit bounds accepted.
// Buckets are stored as columns, so a histogram with other bounds could not be merged with the
// rest and is refused rather than re-bucketed approximately.
var latencyMetric = catalogue.MustLookup("spindle.disk.io.latency")

func init() {
	if len(latencyMetric.Bounds)+1 != telemetry.LatencyBuckets {
		panic(fmt.Sprintf("the catalogue gives %s %d bounds; the gateway stores %d buckets", latencyMetric.Name, len(latencyMetric.Bounds), telemetry.LatencyBuckets))
	}
}

type latencyKey struct {
	device, operation string
	time              pcommon.Timestamp
}

// latencyRows holds the histograms in arrival order, indexed by key (a row is too large to
// sit in a map without an allocation each).
type latencyRows struct {
	index map[latencyKey]int
	list  []telemetry.DiskLatencyRow
}

func (rows *latencyRows) add(m *otlp.Metric) error {
	name := m.Name
	if m.Unit != "" && m.Unit != latencyMetric.Unit {
		return fmt.Errorf("metric %s has unit %q; Spindle expects %q (docs/metrics.md)", name, m.Unit, latencyMetric.Unit)
	}
	switch m.Type {
	case pmetric.MetricTypeHistogram:
	case pmetric.MetricTypeExponentialHistogram:
		return fmt.Errorf("metric %s is an exponential histogram; Spindle stores it with the explicit bounds 2^0 … 2^26 µs (docs/metrics.md): send a Histogram with those bounds", name)
	default:
		return fmt.Errorf("metric %s is a %s; Spindle expects a Histogram with delta temporality", name, describe(m))
	}
	if t := m.Temporality; t != pmetric.AggregationTemporalityDelta {
		return fmt.Errorf("metric %s has %s temporality; Spindle stores per-interval deltas, so export it with delta temporality", name, t)
	}
	dps := m.Histograms
	for i := 0; i < len(dps); i++ {
		dp := &dps[i]
		if dp.NoRecordedValue() {
			continue
		}
		if err := rows.addPoint(dp); err != nil {
			return fmt.Errorf("metric %s point %d: %w", name, i, err)
		}
	}
	return nil
}

func (rows *latencyRows) addPoint(dp *otlp.HistogramPoint) error {
	if err := checkLatencyBounds(dp.ExplicitBounds); err != nil {
		return err
	}
	device, operation, err := latencyOperation(dp.Attributes)
	if err != nil {
		return err
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	if dp.Start == 0 || dp.Start >= dp.Time {
		return fmt.Errorf("the delta point's interval (start %s, end %s) is missing or empty", dp.Start, dp.Time)
	}
	counts := dp.BucketCounts
	if len(counts) != telemetry.LatencyBuckets {
		return fmt.Errorf("the point has %d bucket counts; %d bounds make %d buckets", len(counts), len(latencyMetric.Bounds), telemetry.LatencyBuckets)
	}
	row := telemetry.DiskLatencyRow{Time: dp.Time.AsTime().UTC(), Device: device, Operation: operation,
		IntervalSeconds: time.Duration(dp.Time - dp.Start).Seconds()}
	var total uint64
	for i, c := range counts {
		if c > math.MaxInt64 || total > math.MaxInt64-c {
			return fmt.Errorf("bucket %d count %d is too large", i, c)
		}
		row.Buckets[i] = int64(c)
		total += c
	}
	if total != dp.Count {
		return fmt.Errorf("count is %d but the buckets add up to %d", dp.Count, total)
	}
	row.Operations = int64(total)
	if !dp.HasSum {
		return fmt.Errorf("the point has no sum; Spindle stores the exact total latency with the buckets")
	}
	if s := dp.Sum; math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return fmt.Errorf("sum %v is not a finite non-negative number of seconds", s)
	}
	row.SumSeconds = dp.Sum
	key := latencyKey{device: device, operation: operation, time: dp.Time}
	if _, dup := rows.index[key]; dup {
		return fmt.Errorf("device %s has two %s histograms at %s", device, operation, dp.Time)
	}
	if rows.index == nil {
		rows.index = map[latencyKey]int{}
	}
	rows.index[key] = len(rows.list)
	rows.list = append(rows.list, row)
	return nil
}

// checkLatencyBounds accepts exactly the catalogue's bounds (to a relative 1e-9, so a producer
// that computes 2^i/1e6 differently from the decimal literal is not refused).
func checkLatencyBounds(bounds []float64) error {
	want := latencyMetric.Bounds
	matches := len(bounds) == len(want)
	for i := 0; matches && i < len(want); i++ {
		matches = math.Abs(bounds[i]-want[i]) <= 1e-9*want[i]
	}
	if !matches {
		return fmt.Errorf("the histogram's explicit bounds are %s; Spindle accepts only the %d bounds 2^0 … 2^26 µs written in seconds (1e-06, 2e-06, … 67.108864; docs/metrics.md)", summariseBounds(bounds), len(want))
	}
	return nil
}

func summariseBounds(bounds []float64) string {
	if len(bounds) <= 4 {
		return fmt.Sprint(bounds)
	}
	return fmt.Sprintf("[%v %v … %v] (%d bounds)", bounds[0], bounds[1], bounds[len(bounds)-1], len(bounds))
}

// latencyOperation is read or write (disk.io.direction), or flush / discard
// (spindle.disk.operation, whose direction is write).
func latencyOperation(attrs otlp.Attributes) (device, operation string, err error) {
	text := func(key string) (string, bool) {
		v, ok := attrs.Get(key)
		return v.Str, ok && v.Str != ""
	}
	device, ok := text("system.device")
	if !ok {
		return "", "", fmt.Errorf("the point has no system.device attribute")
	}
	direction, ok := text("disk.io.direction")
	if !ok || (direction != "read" && direction != "write") {
		return "", "", fmt.Errorf("disk.io.direction is %q; expected \"read\" or \"write\"", direction)
	}
	if op, ok := text("spindle.disk.operation"); ok {
		if (op != "flush" && op != "discard") || direction != "write" {
			return "", "", fmt.Errorf("spindle.disk.operation is %q with direction %q; expected flush or discard with direction write", op, direction)
		}
		return device, op, nil
	}
	return device, direction, nil
}

// rows returns the histograms ordered by time, device, operation.
func (rows *latencyRows) rows() []telemetry.DiskLatencyRow {
	out := rows.list
	if out == nil {
		out = []telemetry.DiskLatencyRow{}
	}
	slices.SortFunc(out, func(a, b telemetry.DiskLatencyRow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Device, b.Device), cmp.Compare(a.Operation, b.Operation))
	})
	return out
}
