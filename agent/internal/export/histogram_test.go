package export

import (
	"context"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
)

// TestHistogramRoundTrip records pre-aggregated latency buckets and decodes the spooled batch:
// an OTLP histogram with DELTA temporality, the catalogue's bounds, the counts as recorded
// (two recordings of one series in a tick add up), and the batch's interval.
func TestHistogramRoundTrip(t *testing.T) {
	h := newHarness(t)
	sink := h.pipeline.Sink()
	counts := func(at map[int]uint64) []uint64 {
		c := make([]uint64, catalogue.LatencyBucketCount)
		for i, n := range at {
			c[i] = n
		}
		return c
	}
	sda := []attribute.KeyValue{attribute.String(catalogue.AttrDevice, "sda"), attribute.String(catalogue.AttrDirection, "read")}
	sink.AddHistogram(catalogue.DiskIOLatency, collector.HistogramDelta{BucketCounts: counts(map[int]uint64{7: 3, 8: 1}), Sum: 0.0005}, sda...)
	sink.AddHistogram(catalogue.DiskIOLatency, collector.HistogramDelta{BucketCounts: counts(map[int]uint64{7: 2}), Sum: 0.0002}, sda...)
	sink.AddHistogram(catalogue.DiskIOLatency, collector.HistogramDelta{BucketCounts: counts(map[int]uint64{27: 1}), Sum: 70},
		attribute.String(catalogue.AttrDevice, "sda"), attribute.String(catalogue.AttrDirection, "write"),
		attribute.String(catalogue.AttrOperation, "flush"))
	sink.AddInt(catalogue.DiskSplitOperations, 5, attribute.String(catalogue.AttrDevice, "sda"))
	if _, err := h.pipeline.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	rm := h.takeBatch(t)
	m := metricsByName(rm)["spindle.disk.io.latency"]
	if m == nil || m.Unit != "s" {
		t.Fatalf("latency metric missing or wrong unit: %v", m)
	}
	hist := m.GetHistogram()
	if hist.AggregationTemporality != metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA || len(hist.DataPoints) != 2 {
		t.Fatalf("histogram %v", hist)
	}
	split := metricsByName(rm)["spindle.disk.split_operations"].GetSum().DataPoints[0]
	for _, p := range hist.DataPoints {
		if !slices.Equal(p.ExplicitBounds, catalogue.DiskIOLatency.Bounds) || p.ExplicitBounds[0] != 1e-6 || p.ExplicitBounds[26] != 67.108864 {
			t.Errorf("bounds %v", p.ExplicitBounds)
		}
		if p.StartTimeUnixNano != split.StartTimeUnixNano || p.TimeUnixNano != split.TimeUnixNano {
			t.Errorf("histogram interval [%d,%d] differs from the batch's [%d,%d]", p.StartTimeUnixNano, p.TimeUnixNano, split.StartTimeUnixNano, split.TimeUnixNano)
		}
		switch attr(p.Attributes, catalogue.AttrDirection).GetStringValue() {
		case "read":
			if p.Count != 6 || p.BucketCounts[7] != 5 || p.BucketCounts[8] != 1 || p.GetSum() < 0.00069 || p.GetSum() > 0.00071 {
				t.Errorf("read point %v", p)
			}
		case "write":
			if p.Count != 1 || p.BucketCounts[27] != 1 || attr(p.Attributes, catalogue.AttrOperation).GetStringValue() != "flush" {
				t.Errorf("flush point %v", p)
			}
		}
	}

	// The next batch starts empty: histograms are deltas.
	sink.AddInt(catalogue.DiskSplitOperations, 1, attribute.String(catalogue.AttrDevice, "sda"))
	if _, err := h.pipeline.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, stale := metricsByName(h.takeBatch(t))["spindle.disk.io.latency"]; stale {
		t.Error("latency histogram repeated in a batch where nothing was recorded")
	}
}

func TestHistogramWithWrongBucketCountIsReported(t *testing.T) {
	var reported error
	var s sink
	s.errorHandler = func(err error) { reported = err }
	s.AddHistogram(catalogue.DiskIOLatency, collector.HistogramDelta{BucketCounts: make([]uint64, 3)})
	if reported == nil {
		t.Fatal("a histogram with 3 buckets for a 28-bucket metric was accepted")
	}
}
