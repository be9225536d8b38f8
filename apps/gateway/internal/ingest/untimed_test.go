package ingest

import (
	"reflect"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// mapUntimed maps deepSample (sda read and flush histograms) with the untimed counts given.
func mapUntimed(t *testing.T, untimed []otlpfixture.Untimed, change func(md pmetric.Metrics)) (telemetry.Deep, error) {
	t.Helper()
	s, d := deepSample()
	d.Untimed = untimed
	md := otlpfixture.Build(s)
	otlpfixture.AddDeep(md, 0, s, d)
	if change != nil {
		change(md)
	}
	request, err := mapPdata(md)
	if err != nil {
		return telemetry.Deep{}, err
	}
	return request.Batches[0].Deep, nil
}

func untimedPoint(md pmetric.Metrics) pmetric.NumberDataPoint {
	return otlpfixture.Metric(md, 0, "spindle.disk.io.untimed").Sum().DataPoints().At(0)
}

// TestMapStoresUntimedNextToLatency: a read histogram's count (0 is a count), a write count
// without any histogram (every completion of the interval went untimed) and a discard count.
func TestMapStoresUntimedNextToLatency(t *testing.T) {
	deep, err := mapUntimed(t, []otlpfixture.Untimed{
		{Device: "sda", Operation: "read", Count: 0},
		{Device: "sdb", Operation: "write", Count: 12},
		{Device: "sda", Operation: "discard", Count: 3},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []telemetry.DiskUntimedRow{
		{Time: sampleEnd, Device: "sda", Operation: "discard", IntervalSeconds: 10, UntimedOps: 3},
		{Time: sampleEnd, Device: "sda", Operation: "read", IntervalSeconds: 10, UntimedOps: 0},
		{Time: sampleEnd, Device: "sdb", Operation: "write", IntervalSeconds: 10, UntimedOps: 12},
	}
	if !reflect.DeepEqual(deep.DiskUntimed, want) {
		t.Errorf("untimed rows\n got %+v\nwant %+v", deep.DiskUntimed, want)
	}
	if len(deep.DiskLatency) != 2 {
		t.Errorf("latency rows %+v: the untimed counts must leave them as they are", deep.DiskLatency)
	}
}

// TestMapLeavesUntimedUnmeasuredWhenNotSent: an agent from before the count sends histograms
// only; nothing is made up for them (no row: not measured, never 0).
func TestMapLeavesUntimedUnmeasuredWhenNotSent(t *testing.T) {
	deep, err := mapUntimed(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(deep.DiskUntimed) != 0 {
		t.Errorf("untimed rows %+v, want none", deep.DiskUntimed)
	}
}

func TestMapRefusesImpossibleUntimedCounts(t *testing.T) {
	read := []otlpfixture.Untimed{{Device: "sda", Operation: "read", Count: 4}}
	cases := []struct {
		name    string
		untimed []otlpfixture.Untimed
		change  func(md pmetric.Metrics)
		want    string
	}{
		{"negative", read, func(md pmetric.Metrics) { untimedPoint(md).SetIntValue(-1) }, "value -1 is negative"},
		{"not a number", read, func(md pmetric.Metrics) { untimedPoint(md).SetDoubleValue(-0.5) }, "is negative"},
		{"flush", []otlpfixture.Untimed{{Device: "sda", Operation: "flush", Count: 1}}, nil, "reads, writes and discards only"},
		{"discard as a read", []otlpfixture.Untimed{{Device: "sda", Operation: "discard", Count: 1}}, func(md pmetric.Metrics) {
			untimedPoint(md).Attributes().PutStr("disk.io.direction", "read")
		}, "expected flush or discard with direction write"},
		{"unknown direction", read, func(md pmetric.Metrics) { untimedPoint(md).Attributes().PutStr("disk.io.direction", "both") }, `disk.io.direction is "both"`},
		{"no device", read, func(md pmetric.Metrics) { untimedPoint(md).Attributes().Remove("system.device") }, "no system.device attribute"},
		{"cumulative", read, func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.disk.io.untimed").Sum().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		}, "cumulative temporality"},
		{"a gauge", read, func(md pmetric.Metrics) {
			m := otlpfixture.Metric(md, 0, "spindle.disk.io.untimed")
			m.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
		}, "Gauge"},
		{"other unit", read, func(md pmetric.Metrics) { otlpfixture.Metric(md, 0, "spindle.disk.io.untimed").SetUnit("By") }, `unit "By"`},
		{"no interval", read, func(md pmetric.Metrics) { untimedPoint(md).SetStartTimestamp(0) }, "no start time"},
		{"another interval than its histogram", read, func(md pmetric.Metrics) {
			p := untimedPoint(md)
			p.SetStartTimestamp(p.StartTimestamp() + 5e9)
		}, "both must share the interval"},
		{"twice", append(read, read...), nil, "two read untimed counts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := mapUntimed(t, c.untimed, c.change)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
