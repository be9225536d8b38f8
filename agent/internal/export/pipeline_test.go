package export

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

type harness struct {
	pipeline *Pipeline
	spool    *spool.Spool
}

func newHarness(t *testing.T) harness {
	t.Helper()
	state := t.TempDir()
	sp, err := spool.Open(filepath.Join(state, "spool"), 1<<20, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	seq, err := spool.OpenSequence(filepath.Join(state, "batch.seq"), 41)
	if err != nil {
		t.Fatal(err)
	}
	host := hostinfo.Info{Hostname: "db01", OS: "linux", OSVersion: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0-18-amd64", Arch: "amd64"}
	p, err := New(context.Background(), Settings{Resource: BaseResource(host, "1.2.3", "agent-1"), Spool: sp, Sequence: seq,
		OnError: func(err error) { t.Errorf("pipeline error: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	return harness{pipeline: p, spool: sp}
}

// takeBatch removes the oldest spooled batch and decodes it as the gateway would.
func (h harness) takeBatch(t *testing.T) *metricpb.ResourceMetrics {
	t.Helper()
	b, ok, err := h.spool.Oldest()
	if err != nil || !ok {
		t.Fatalf("no batch in the spool: %v", err)
	}
	if b.ContentEncoding != "gzip" {
		t.Fatalf("content encoding %q, want gzip", b.ContentEncoding)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b.Body))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var req colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		t.Fatalf("spooled body is not an OTLP ExportMetricsServiceRequest: %v", err)
	}
	if len(req.ResourceMetrics) != 1 {
		t.Fatalf("%d ResourceMetrics, want 1", len(req.ResourceMetrics))
	}
	if err := h.spool.Remove(b.Seq); err != nil {
		t.Fatal(err)
	}
	rm := req.ResourceMetrics[0]
	if got := attr(rm.Resource.Attributes, catalogue.ResourceBatchSeq).GetIntValue(); uint64(got) != b.Seq {
		t.Fatalf("resource spindle.batch.seq %d but the file is batch %d", got, b.Seq)
	}
	return rm
}

func attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func metricsByName(rm *metricpb.ResourceMetrics) map[string]*metricpb.Metric {
	out := map[string]*metricpb.Metric{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

func TestExportRoundTrip(t *testing.T) {
	h := newHarness(t)
	sink := h.pipeline.Sink()
	dev := attribute.String(catalogue.AttrDevice, "sda")
	read := attribute.String(catalogue.AttrDirection, catalogue.DirectionRead)

	sink.AddInt(catalogue.DiskOperations, 600, dev, read)
	sink.AddFloat(catalogue.DiskIOTime, 7, dev)
	sink.SetInt(catalogue.DiskPendingOperations, 3, dev)
	sink.SetInt(catalogue.MemoryLimit, 1<<30)
	seq1, err := h.pipeline.Flush(context.Background())
	if err != nil || seq1 != 42 {
		t.Fatalf("first batch seq %d, %v; want 42 (the sequence continues above 41)", seq1, err)
	}
	sink.AddInt(catalogue.DiskOperations, 5, dev, read)
	seq2, err := h.pipeline.Flush(context.Background())
	if err != nil || seq2 != 43 {
		t.Fatalf("second batch seq %d, %v", seq2, err)
	}

	first := h.takeBatch(t)
	for key, want := range map[string]string{"host.name": "db01", "os.type": "linux", "os.description": "Debian GNU/Linux 12 (bookworm)",
		"host.arch": "amd64", "service.name": "spindle-agent", "service.version": "1.2.3", "spindle.os.kernel": "6.1.0-18-amd64",
		"spindle.agent.id": "agent-1"} {
		if got := attr(first.Resource.Attributes, key).GetStringValue(); got != want {
			t.Errorf("resource %s = %q, want %q", key, got, want)
		}
	}
	byName := metricsByName(first)
	ops := byName["system.disk.operations"]
	if ops == nil || ops.Unit != "{operation}" || ops.GetSum() == nil {
		t.Fatalf("system.disk.operations missing or not a sum: %v", ops)
	}
	sum := ops.GetSum()
	if sum.AggregationTemporality != metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA || !sum.IsMonotonic {
		t.Fatalf("temporality %v monotonic %v; want DELTA, monotonic", sum.AggregationTemporality, sum.IsMonotonic)
	}
	pt := sum.DataPoints[0]
	if pt.GetAsInt() != 600 || attr(pt.Attributes, "system.device").GetStringValue() != "sda" ||
		attr(pt.Attributes, "disk.io.direction").GetStringValue() != "read" {
		t.Fatalf("point %v", pt)
	}
	if ioTime := byName["system.disk.io_time"].GetSum(); ioTime == nil || ioTime.DataPoints[0].GetAsDouble() != 7 || byName["system.disk.io_time"].Unit != "s" {
		t.Fatalf("system.disk.io_time: %v", byName["system.disk.io_time"])
	}
	if g := byName["spindle.disk.pending_operations"].GetGauge(); g == nil || g.DataPoints[0].GetAsInt() != 3 {
		t.Fatalf("pending operations gauge: %v", byName["spindle.disk.pending_operations"])
	}

	// Every point of a batch covers the same interval, and batches tile time without gaps.
	start1, end1 := pt.StartTimeUnixNano, pt.TimeUnixNano
	for name, m := range byName {
		for _, p := range append(m.GetSum().GetDataPoints(), m.GetGauge().GetDataPoints()...) {
			if p.StartTimeUnixNano != start1 || p.TimeUnixNano != end1 {
				t.Errorf("%s covers [%d, %d], batch covers [%d, %d]", name, p.StartTimeUnixNano, p.TimeUnixNano, start1, end1)
			}
		}
	}
	second := h.takeBatch(t)
	secondOps := metricsByName(second)["system.disk.operations"].GetSum().DataPoints[0]
	if secondOps.GetAsInt() != 5 {
		t.Fatalf("second batch carries %d operations, want only the delta 5", secondOps.GetAsInt())
	}
	if secondOps.StartTimeUnixNano != end1 || secondOps.TimeUnixNano <= end1 {
		t.Fatalf("second interval [%d, %d] does not start where the first ended (%d)", secondOps.StartTimeUnixNano, secondOps.TimeUnixNano, end1)
	}
	if _, stale := metricsByName(second)["system.memory.limit"]; stale {
		t.Fatal("a gauge not recorded this interval was exported again")
	}
	if d := time.Duration(end1 - start1); d <= 0 || d > time.Minute {
		t.Fatalf("implausible interval %v", d)
	}
}

func TestFlushWithNothingRecordedWritesNoBatch(t *testing.T) {
	h := newHarness(t)
	seq, err := h.pipeline.Flush(context.Background())
	if err != nil || seq != 0 {
		t.Fatalf("Flush = %d, %v; want 0, nil", seq, err)
	}
	if st := h.spool.Stats(); st.Batches != 0 {
		t.Fatalf("%+v", st)
	}
}
