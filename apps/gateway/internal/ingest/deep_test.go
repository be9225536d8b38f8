package ingest

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

func deepSample() (otlpfixture.Sample, otlpfixture.Deep) {
	return sample(3), otlpfixture.Deep{
		Latency: []otlpfixture.Latency{
			{Device: "sda", Operation: "read", Counts: []uint64{0, 0, 0, 0, 0, 0, 0, 4, 6}, SumSeconds: 0.0019},
			{Device: "sda", Operation: "flush", Counts: []uint64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, SumSeconds: 0.003},
		},
		Splits:       map[string]int64{"sda": 17},
		PageCache:    &[2]int64{1000, 40},
		Databases:    []otlpfixture.Database{{Name: "shop", Commits: 500, Rollbacks: 2, BlocksHit: 9000, BlocksRead: 100, ReadSeconds: 0.0125}},
		Pressure:     map[string]float64{"memory/some": 0.0015, "io/full": 0.25},
		Scans:        []otlpfixture.Scan{{Root: "/var/lib/postgresql", Files: 120, Fragmented: 3, Extents: 160, Excess: 40, Unsupported: 2, DurationSeconds: 1.5, WorstFiles: []otlpfixture.WorstFile{{Path: "/var/lib/postgresql/16/main/base/1/1259", Extents: 30, Bytes: 1 << 20}, {Path: "/var/lib/postgresql/16/main/base/1/2608", Extents: 9, Bytes: 8192}}}},
		Capabilities: []string{"ebpf.block_latency", "ebpf.block_split"},
	}
}

func mapDeep(t *testing.T, change func(md pmetric.Metrics)) (telemetry.Deep, error) {
	t.Helper()
	s, d := deepSample()
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

func TestMapStoresEveryDeepFamily(t *testing.T) {
	deep, err := mapDeep(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	var read, flush [telemetry.LatencyBuckets]int64
	read[7], read[8], flush[12] = 4, 6, 1
	wantLatency := []telemetry.DiskLatencyRow{
		{Time: sampleEnd, Device: "sda", Operation: "flush", IntervalSeconds: 10, Operations: 1, SumSeconds: 0.003, Buckets: flush},
		{Time: sampleEnd, Device: "sda", Operation: "read", IntervalSeconds: 10, Operations: 10, SumSeconds: 0.0019, Buckets: read},
	}
	if !reflect.DeepEqual(deep.DiskLatency, wantLatency) {
		t.Errorf("latency rows\n got %+v\nwant %+v", deep.DiskLatency, wantLatency)
	}
	if want := []telemetry.DiskSplitRow{{Time: sampleEnd, Device: "sda", IntervalSeconds: 10, SplitOps: 17}}; !reflect.DeepEqual(deep.DiskSplit, want) {
		t.Errorf("split rows %+v", deep.DiskSplit)
	}
	if want := []telemetry.PageCacheRow{{Time: sampleEnd, IntervalSeconds: 10, Accesses: 1000, Misses: 40}}; !reflect.DeepEqual(deep.PageCache, want) {
		t.Errorf("page cache rows %+v", deep.PageCache)
	}
	wantPg := []telemetry.PgDatabaseRow{{Time: sampleEnd, Database: "shop", IntervalSeconds: 10, Commits: 500, Rollbacks: 2, BlocksHit: 9000, BlocksRead: 100, BlockReadTimeMicros: m(12500)}}
	if !reflect.DeepEqual(deep.PgDatabase, wantPg) {
		t.Errorf("pg rows %+v", deep.PgDatabase)
	}
	if len(deep.Pressure) != 1 {
		t.Fatalf("pressure rows %+v", deep.Pressure)
	}
	p := deep.Pressure[0]
	if p.MemorySomeMicros != telemetry.Measure(1500) || p.IOFullMicros != telemetry.Measure(250000) || p.MemoryFullMicros.Valid || p.IOSomeMicros.Valid {
		t.Errorf("pressure row: unreported lines must stay not measured, reported ones in µs: %+v", p)
	}
	unsupported := int64(2)
	wantScan := []telemetry.FragmentationScan{{Time: sampleEnd, Root: "/var/lib/postgresql", Summary: true, Files: 120, FragmentedFiles: 3, Extents: 160, ExcessExtents: 40, UnsupportedFiles: &unsupported, ScanDurationMs: m(1500),
		WorstFiles: []telemetry.FragmentedFile{{Path: "/var/lib/postgresql/16/main/base/1/1259", Extents: 30, SizeBytes: 1 << 20}, {Path: "/var/lib/postgresql/16/main/base/1/2608", Extents: 9, SizeBytes: 8192}}}}
	if !reflect.DeepEqual(deep.Fragmentation, wantScan) {
		t.Errorf("fragmentation\n got %+v\nwant %+v", deep.Fragmentation, wantScan)
	}
	if !slices.Equal(deep.Capabilities, []string{"ebpf.block_latency", "ebpf.block_split"}) {
		t.Errorf("capabilities %v", deep.Capabilities)
	}
}

func latencyPoint(md pmetric.Metrics) pmetric.HistogramDataPoint {
	return otlpfixture.Metric(md, 0, "spindle.disk.io.latency").Histogram().DataPoints().At(0)
}

func TestMapRefusesHistogramsItCannotMerge(t *testing.T) {
	cases := []struct {
		name   string
		change func(md pmetric.Metrics)
		want   string
	}{
		{"other bounds", func(md pmetric.Metrics) {
			latencyPoint(md).ExplicitBounds().FromRaw([]float64{0.001, 0.01, 0.1})
			latencyPoint(md).BucketCounts().FromRaw([]uint64{10, 0, 0, 0})
		}, "Spindle accepts only the 27 bounds 2^0 … 2^26 µs"},
		{"bounds in milliseconds", func(md pmetric.Metrics) {
			bounds := otlpfixture.LatencyBounds()
			for i := range bounds {
				bounds[i] *= 1000
			}
			latencyPoint(md).ExplicitBounds().FromRaw(bounds)
		}, "explicit bounds are [0.001 0.002 … 67108.864] (27 bounds)"},
		{"count disagrees with buckets", func(md pmetric.Metrics) { latencyPoint(md).SetCount(11) }, "count is 11 but the buckets add up to 10"},
		{"wrong number of buckets", func(md pmetric.Metrics) { latencyPoint(md).BucketCounts().FromRaw([]uint64{10}) }, "has 1 bucket counts"},
		{"no sum", func(md pmetric.Metrics) { latencyPoint(md).RemoveSum() }, "has no sum"},
		{"cumulative", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.disk.io.latency").Histogram().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		}, "delta temporality"},
		{"milliseconds unit", func(md pmetric.Metrics) { otlpfixture.Metric(md, 0, "spindle.disk.io.latency").SetUnit("ms") }, `unit "ms"`},
		{"flush as a read", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.disk.io.latency").Histogram().DataPoints().At(1).Attributes().PutStr("disk.io.direction", "read")
		}, "expected flush or discard with direction write"},
		{"exponential", func(md pmetric.Metrics) {
			m := otlpfixture.Metric(md, 0, "spindle.disk.io.latency")
			m.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().SetCount(1)
		}, "exponential histogram"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := mapDeep(t, c.change)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestMapRefusesIncompleteOrImpossibleDeepRows(t *testing.T) {
	cases := []struct {
		name   string
		change func(md pmetric.Metrics)
		want   string
	}{
		{"misses beyond accesses", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.page_cache.misses").Sum().DataPoints().At(0).SetIntValue(5000)
		}, "misses exceed"},
		{"page cache without misses", func(md pmetric.Metrics) {
			m := otlpfixture.Metric(md, 0, "spindle.page_cache.misses")
			m.SetName("spindle.page_cache.unknown")
		}, "page_cache at"},
		{"unknown pressure scope", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.pressure.stall_time").Sum().DataPoints().At(0).Attributes().PutStr("spindle.pressure.scope", "all")
		}, "expected memory or io, and some or full"},
		{"database without its name", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.db.postgresql.commits").Sum().DataPoints().At(0).Attributes().Remove("db.namespace")
		}, "no db.namespace attribute"},
		{"scan missing a count", func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.fragmentation.extents").SetName("spindle.fragmentation.other")
		}, "a scan needs files, fragmented_files, extents and excess_extents together"},
		{"capabilities as one string", func(md pmetric.Metrics) {
			md.ResourceMetrics().At(0).Resource().Attributes().PutStr("spindle.agent.capabilities", "ebpf.block_latency")
		}, "must be a list of strings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := mapDeep(t, c.change)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestMapLeavesCapabilitiesUnknownWhenNotSent(t *testing.T) {
	request, err := mapPdata(otlpfixture.Build(sample(1)))
	if err != nil {
		t.Fatal(err)
	}
	if request.Batches[0].Deep.Capabilities != nil {
		t.Errorf("capabilities %v, want nil (not reported)", request.Batches[0].Deep.Capabilities)
	}
}

// TestEveryStoredCatalogueMetricIsMapped keeps the mappers and the generated catalogue in step:
// a metric the catalogue stores must have a mapper writing its table, and nothing else may.
func TestEveryStoredCatalogueMetricIsMapped(t *testing.T) {
	mapped := map[string]string{latencyMetric.Name: "disk_latency", untimedMetric.Name: "disk_io_untimed"}
	for name, spec := range diskMetrics {
		mapped[name] = "disk_io"
		if m, _ := catalogue.Lookup(name); m.Unit != spec.unit {
			t.Errorf("%s: the disk mapper expects unit %q, the catalogue says %q", name, spec.unit, m.Unit)
		}
	}
	for name := range memoryMetrics {
		mapped[name] = "memory"
		if m, _ := catalogue.Lookup(name); m.Unit != "By" {
			t.Errorf("%s: the memory mapper expects bytes, the catalogue says %q", name, m.Unit)
		}
	}
	for name, spec := range counterMetrics {
		mapped[name] = spec.family.table
	}
	for name := range fragmentationMetrics {
		mapped[name] = "fragmentation_scans"
	}
	mapped["spindle.fragmentation.file.extents"] = "fragmentation_worst_files"
	for name, spec := range accelMetrics {
		mapped[name] = spec.family.Table
	}
	mapped[writeOptFileMetric.Name] = "write_opt_files"
	for name := range mrcUnits {
		mapped[name] = "cache_mrc"
	}
	mapped[filesystemLimitMetric.Name], mapped[filesystemUsageMetric.Name] = "filesystem", "filesystem"
	mapped[spoolSizeMetric.Name], mapped[spoolBatchesMetric.Name] = "agent_spool", "agent_spool"
	for _, m := range []string{sqlServerBatchesMetric.Name, sqlServerHitRatioMetric.Name, sqlServerLifeMetric.Name} {
		mapped[m] = "sqlserver_stats"
	}
	for _, m := range catalogue.Metrics {
		if got := mapped[m.Name]; got != m.Table {
			t.Errorf("%s: the catalogue stores it in %q, the gateway maps it to %q", m.Name, m.Table, got)
		}
		delete(mapped, m.Name)
	}
	for name := range mapped {
		t.Errorf("%s is mapped but not in the catalogue", name)
	}
}
