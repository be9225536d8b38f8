package ingest

import (
	"database/sql"
	"math"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

var (
	sampleStart = time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	sampleEnd   = sampleStart.Add(10 * time.Second)
	m           = telemetry.Measure
)

func sample(seq int64) otlpfixture.Sample {
	return otlpfixture.Sample{
		Seq: seq, Start: sampleStart, End: sampleEnd,
		Disks: []otlpfixture.Disk{{
			Device: "sda", ReadOps: 120, WriteOps: 45, ReadBytes: 491520, WriteBytes: 184320,
			ReadMerged: 3, WriteMerged: 7, ReadSeconds: 0.2404, WriteSeconds: 0.0906,
			IOSeconds: 0.3125, WeightedIOSeconds: 0.3311, InProgress: 2,
		}},
		Memory: &otlpfixture.Memory{
			Limit: 8 << 30, Available: 5 << 30, Free: 1 << 30, Cached: 3 << 30, Buffers: 256 << 20,
			Dirty: 12 << 20, SwapUsed: 100 << 20, SwapFree: 924 << 20,
		},
	}
}

func TestMapConvertsAnAgentExportToWideRows(t *testing.T) {
	request, err := mapPdata(otlpfixture.Build(sample(7)))
	if err != nil {
		t.Fatal(err)
	}
	if len(request.Batches) != 1 {
		t.Fatalf("got %d batches, want 1", len(request.Batches))
	}
	batch := request.Batches[0]
	if batch.Seq != 7 {
		t.Errorf("seq = %d, want 7", batch.Seq)
	}
	wantHost := telemetry.HostInfo{Hostname: "db01", OS: "linux", OSVersion: "Debian GNU/Linux 12 (bookworm)",
		Kernel: "6.1.0-18-amd64", Arch: "amd64", AgentVersion: "0.1.0"}
	if batch.Host != wantHost {
		t.Errorf("host = %+v, want %+v", batch.Host, wantHost)
	}
	wantDisk := telemetry.DiskIORow{
		Time: sampleEnd, Device: "sda", IntervalSeconds: 10,
		ReadOps: m(120), WriteOps: m(45), ReadBytes: m(491520), WriteBytes: m(184320), ReadMerged: m(3), WriteMerged: m(7),
		ReadTimeMs: m(240), WriteTimeMs: m(91), IOTimeMs: m(313), WeightedIOTimeMs: m(331), InProgress: sql.Null[int32]{V: 2, Valid: true},
	}
	if len(batch.DiskIO) != 1 || batch.DiskIO[0] != wantDisk {
		t.Errorf("disk rows = %+v, want [%+v]", batch.DiskIO, wantDisk)
	}
	wantMemory := telemetry.MemoryRow{
		Time: sampleEnd, TotalBytes: m(8 << 30), AvailableBytes: m(5 << 30), FreeBytes: m(1 << 30), CachedBytes: m(3 << 30),
		BuffersBytes: m(256 << 20), DirtyBytes: m(12 << 20), SwapTotalBytes: m(1024 << 20), SwapFreeBytes: m(924 << 20),
	}
	if len(batch.Memory) != 1 || batch.Memory[0] != wantMemory {
		t.Errorf("memory rows = %+v, want [%+v]", batch.Memory, wantMemory)
	}
}

func TestMapGroupsPointsByDeviceAndTime(t *testing.T) {
	s := sample(1)
	s.Disks = append(s.Disks, otlpfixture.Disk{Device: "nvme0n1", ReadOps: 9})
	request, err := mapPdata(otlpfixture.Build(s))
	if err != nil {
		t.Fatal(err)
	}
	rows := request.Batches[0].DiskIO
	if len(rows) != 2 || rows[0].Device != "nvme0n1" || rows[1].Device != "sda" || rows[0].ReadOps != m(9) {
		t.Fatalf("rows = %+v, want nvme0n1 (9 reads) then sda", rows)
	}
}

func TestMapCountsUnknownMetricsAndKeepsTheRest(t *testing.T) {
	md := otlpfixture.Build(sample(1))
	future := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty()
	future.SetName("spindle.cache.hits")
	future.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(5)
	future.Gauge().DataPoints().AppendEmpty().SetIntValue(6)
	request, err := mapPdata(md)
	if err != nil {
		t.Fatal(err)
	}
	if request.IgnoredPoints["spindle.cache.hits"] != 2 || len(request.Batches[0].DiskIO) != 1 {
		t.Fatalf("ignored = %v, rows = %d", request.IgnoredPoints, len(request.Batches[0].DiskIO))
	}
}

func TestMapAcceptsUpDownCounterLevels(t *testing.T) {
	md := otlpfixture.Build(sample(1))
	usage := otlpfixture.Metric(md, 0, "system.memory.usage")
	points := pmetric.NewNumberDataPointSlice()
	usage.Gauge().DataPoints().CopyTo(points)
	sum := usage.SetEmptySum()
	sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	points.CopyTo(sum.DataPoints())
	request, err := mapPdata(md)
	if err != nil {
		t.Fatal(err)
	}
	if request.Batches[0].Memory[0].CachedBytes != m(3<<30) {
		t.Fatalf("cached = %+v", request.Batches[0].Memory[0].CachedBytes)
	}
}

func TestMapRejectsInvalidBatches(t *testing.T) {
	tests := []struct {
		name   string
		change func(md pmetric.Metrics)
		want   string
	}{
		{"missing batch seq", func(md pmetric.Metrics) {
			md.ResourceMetrics().At(0).Resource().Attributes().Remove("spindle.batch.seq")
		}, "spindle.batch.seq is missing"},
		{"seq not an int", func(md pmetric.Metrics) {
			md.ResourceMetrics().At(0).Resource().Attributes().PutStr("spindle.batch.seq", "7")
		}, "must be an int"},
		{"seq zero", func(md pmetric.Metrics) {
			md.ResourceMetrics().At(0).Resource().Attributes().PutInt("spindle.batch.seq", 0)
		}, ">= 1"},
		{"cumulative counter", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.io").Sum().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		}, "cumulative temporality"},
		{"counter sent as gauge", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.operations").SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
		}, "expects a Sum with delta temporality"},
		{"negative count", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.operations").Sum().DataPoints().At(0).SetIntValue(-1)
		}, "negative"},
		{"NaN seconds", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.io_time").Sum().DataPoints().At(0).SetDoubleValue(math.NaN())
		}, "not a finite number"},
		{"infinite bytes", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.memory.limit").Gauge().DataPoints().At(0).SetDoubleValue(math.Inf(1))
		}, "not a finite number"},
		{"empty interval", func(md pmetric.Metrics) {
			dp := otlpfixture.Metric(md, 0, "system.disk.io").Sum().DataPoints().At(0)
			dp.SetStartTimestamp(dp.Timestamp())
		}, "interval is empty or negative"},
		{"missing start time", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.merged").Sum().DataPoints().At(1).SetStartTimestamp(0)
		}, "no start time"},
		{"points disagree on the start", func(md pmetric.Metrics) {
			dp := otlpfixture.Metric(md, 0, "system.disk.merged").Sum().DataPoints().At(1)
			dp.SetStartTimestamp(dp.StartTimestamp() + 1)
		}, "disagree on the interval start"},
		{"no device", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.io_time").Sum().DataPoints().At(0).Attributes().Remove("system.device")
		}, "no system.device attribute"},
		{"unknown direction", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.io").Sum().DataPoints().At(0).Attributes().PutStr("disk.io.direction", "sideways")
		}, "expected \"read\" or \"write\""},
		{"milliseconds instead of seconds", func(md pmetric.Metrics) { otlpfixture.Metric(md, 0, "system.disk.operation_time").SetUnit("ms") }, "has unit \"ms\""},
		{"duplicate point", func(md pmetric.Metrics) {
			dps := otlpfixture.Metric(md, 0, "system.disk.io").Sum().DataPoints()
			dps.At(0).CopyTo(dps.AppendEmpty())
		}, "two points for the same column"},
		{"gauge without a counter", func(md pmetric.Metrics) {
			dps := otlpfixture.Metric(md, 0, "spindle.disk.pending_operations").Gauge().DataPoints()
			dps.At(0).Attributes().PutStr("system.device", "sdz")
		}, "device sdz"},
		{"in-flight beyond int32", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.disk.pending_operations").Gauge().DataPoints().At(0).SetIntValue(math.MaxInt32 + 1)
		}, "too large"},
		{"bytes beyond int64", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "system.disk.io").Sum().DataPoints().At(0).SetDoubleValue(1e19)
		}, "too large"},
		{"no timestamp", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.memory.dirty").Gauge().DataPoints().At(0).SetTimestamp(0)
		}, "no timestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := otlpfixture.Build(sample(1), sample(2))
			tt.change(md)
			_, err := mapPdata(md)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestEncodingForContentType(t *testing.T) {
	for contentType, want := range map[string]Encoding{
		"application/x-protobuf":          Protobuf,
		"application/json":                JSON,
		"application/json; charset=utf-8": JSON,
		"text/plain":                      0,
		"":                                0,
	} {
		got, ok := EncodingForContentType(contentType)
		if got != want || ok != (want != 0) {
			t.Errorf("EncodingForContentType(%q) = %v, %v; want %v", contentType, got, ok, want)
		}
	}
}

func TestDecodeReportsWhatIsWrong(t *testing.T) {
	if _, err := Decode([]byte{0xff, 0xff, 0xff}, Protobuf); err == nil || !strings.Contains(err.Error(), "could not decode") {
		t.Errorf("protobuf garbage: error = %v", err)
	}
	if _, err := Decode([]byte(`{"resourceMetrics": [`), JSON); err == nil {
		t.Error("truncated JSON decoded without error")
	}
	md, err := Decode(otlpfixture.JSON(otlpfixture.Build(sample(3))), JSON)
	if err != nil || len(md.ResourceMetrics) != 1 {
		t.Fatalf("JSON round trip: %v", err)
	}
}
