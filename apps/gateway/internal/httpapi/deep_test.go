package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

var deepTables = []string{"disk_latency", "disk_io_untimed", "disk_split_io", "page_cache", "pg_database_stats", "pressure", "fragmentation_scans", "fragmentation_worst_files", "page_cache_top_files"}

func deepTelemetry(worstExtents int64) otlpfixture.Deep {
	return otlpfixture.Deep{
		Latency: []otlpfixture.Latency{
			{Device: "sda", Operation: "read", Counts: []uint64{0, 0, 0, 0, 0, 0, 0, 4, 6}, SumSeconds: 0.0019},
			{Device: "sda", Operation: "discard", Counts: []uint64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, SumSeconds: 0.1},
		},
		// sda's reads measured with none untimed, 3 discards untimed, and sdb's writes all untimed
		// (no histogram of sdb at all).
		Untimed:   []otlpfixture.Untimed{{Device: "sda", Operation: "read", Count: 0}, {Device: "sda", Operation: "discard", Count: 3}, {Device: "sdb", Operation: "write", Count: 5}},
		Splits:    map[string]int64{"sda": 17},
		PageCache: &[2]int64{1000, 40},
		TopFiles:  map[string][2]int64{"/srv/data/big.db": {600, 30}},
		Databases: []otlpfixture.Database{{Name: "shop", Commits: 500, Rollbacks: 2, BlocksHit: 9000, BlocksRead: 100, ReadSeconds: 0.0125}},
		Pressure:  map[string]float64{"memory/some": 0.0015, "io/some": 0.25},
		Scans: []otlpfixture.Scan{{Root: "/srv/data", Files: 10, Fragmented: 2, Extents: 40, Excess: 30, DurationSeconds: 0.2,
			WorstFiles: []otlpfixture.WorstFile{{Path: "/srv/data/big.db", Extents: worstExtents, Bytes: 1 << 30}, {Path: "/srv/data/small.db", Extents: 5, Bytes: 4096}}}},
		Capabilities: []string{"ebpf.block_latency", "ebpf.page_cache"},
	}
}

// deepExport is one batch per seq, each with the deep telemetry from deep(seq).
func deepExport(deep func(seq int64) otlpfixture.Deep, seqs ...int64) pmetric.Metrics {
	var samples []otlpfixture.Sample
	for _, seq := range seqs {
		samples = append(samples, sample(seq))
	}
	md := otlpfixture.Build(samples...)
	for i, s := range samples {
		otlpfixture.AddDeep(md, i, s, deep(s.Seq))
	}
	return md
}

func TestDeepTelemetryIsWrittenWithTheBatchExactlyOnce(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	body := otlpfixture.Proto(deepExport(func(int64) otlpfixture.Deep { return deepTelemetry(25) }, 1, 2))
	for attempt := 0; attempt < 2; attempt++ { // the second delivery is a replay after a lost acknowledgement
		if resp := g.export(t, agent.Credential, body); resp.StatusCode != http.StatusOK {
			t.Fatalf("attempt %d: status %d: %s", attempt, resp.StatusCode, readAll(t, resp))
		}
	}
	ctx := context.Background()
	var operations, bucket07, bucket08, bucket16 int64
	var sumSeconds float64
	if err := g.db.QueryRow(ctx, `SELECT sum(operations), sum(sum_seconds), sum(bucket_07), sum(bucket_08), sum(bucket_16)
		FROM disk_latency WHERE org_id = $1 AND server_id = $2 AND device = 'sda'`, agent.OrgID, agent.ServerID).
		Scan(&operations, &sumSeconds, &bucket07, &bucket08, &bucket16); err != nil {
		t.Fatal(err)
	}
	if operations != 24 || bucket07 != 8 || bucket08 != 12 || bucket16 != 4 || sumSeconds < 0.2037 || sumSeconds > 0.2039 {
		t.Errorf("latency over two batches: operations %d, buckets %d %d %d, sum %v", operations, bucket07, bucket08, bucket16, sumSeconds)
	}
	if n := g.count(t, `SELECT count(*) FROM disk_latency WHERE operation = 'discard'`); n != 2 {
		t.Errorf("%d discard rows, want 2", n)
	}
	checks := map[string]int{
		`SELECT sum(split_ops) FROM disk_split_io WHERE device = 'sda'`: 34,
		// untimed I/Os next to the latency they qualify, a measured 0 kept as a row
		`SELECT count(*) FROM disk_io_untimed WHERE device = 'sda' AND operation = 'read' AND untimed_ops = 0 AND interval_seconds = 10`: 2,
		`SELECT sum(untimed_ops) FROM disk_io_untimed WHERE device = 'sda' AND operation = 'discard'`:                                    6,
		`SELECT sum(untimed_ops) FROM disk_io_untimed WHERE device = 'sdb' AND operation = 'write'`:                                      10,
		`SELECT sum(accesses) - sum(misses) FROM page_cache`:                                                                             1920,
		`SELECT sum(commits) FROM pg_database_stats WHERE database = 'shop'`:                                                             1000,
		`SELECT sum(block_read_time_us) FROM pg_database_stats`:                                                                          25000,
		`SELECT sum(io_some_us) FROM pressure WHERE memory_full_us IS NULL AND io_full_us IS NULL`:                                       500000,
		// the scan was repeated unchanged in the second batch: one history row, not two
		`SELECT count(*) FROM fragmentation_scans WHERE root = '/srv/data' AND extents = 40 AND scan_duration_ms = 200`:                               1,
		`SELECT sum(extents) FROM fragmentation_worst_files WHERE root = '/srv/data'`:                                                                 30,
		`SELECT sum(accesses) - sum(misses) FROM page_cache_top_files WHERE path = '/srv/data/big.db'`:                                                570,
		`SELECT count(*) FROM agents WHERE telemetry_capabilities = '{ebpf.block_latency,ebpf.page_cache}' AND telemetry_capabilities_at IS NOT NULL`: 1,
	}
	for sql, want := range checks {
		if got := g.count(t, sql); got != want {
			t.Errorf("%s = %d, want %d", sql, got, want)
		}
	}
	g.expectSampleRowsIncluded(t, agent)
}

func TestChangedScanResultsAreKeptAsHistoryAndWorstFilesReplaced(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	first := otlpfixture.Proto(deepExport(func(int64) otlpfixture.Deep { return deepTelemetry(25) }, 1))
	changed := func(int64) otlpfixture.Deep {
		d := deepTelemetry(3) // big.db was defragmented
		d.Scans[0].Excess = 8
		d.Scans[0].WorstFiles = d.Scans[0].WorstFiles[:1]
		return d
	}
	second := otlpfixture.Proto(deepExport(changed, 2))
	for _, body := range [][]byte{first, second} {
		if resp := g.export(t, agent.Credential, body); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
		}
	}
	if n := g.count(t, `SELECT count(*) FROM fragmentation_scans`); n != 2 {
		t.Errorf("%d scan rows, want the first and the changed one", n)
	}
	if n := g.count(t, `SELECT excess_extents FROM fragmentation_scans ORDER BY time DESC LIMIT 1`); n != 8 {
		t.Errorf("newest excess extents %d, want 8", n)
	}
	if n := g.count(t, `SELECT count(*) FROM fragmentation_worst_files WHERE path = '/srv/data/big.db' AND extents = 3`); n != 1 {
		t.Error("the worst files were not replaced by the newer scan's")
	}
	if n := g.count(t, `SELECT count(*) FROM fragmentation_worst_files`); n != 1 {
		t.Errorf("%d worst files, want only the newer scan's one", n)
	}
}

func TestRejectedDeepBatchWritesNothing(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	md := deepExport(func(int64) otlpfixture.Deep { return deepTelemetry(25) }, 1, 2)
	// The second batch's histogram uses bounds Spindle cannot merge with stored buckets.
	point := otlpfixture.Metric(md, 1, "spindle.disk.io.latency").Histogram().DataPoints().At(0)
	point.ExplicitBounds().FromRaw([]float64{0.005, 0.01, 0.025, 0.05, 0.1})
	point.BucketCounts().FromRaw([]uint64{1, 2, 3, 4, 0, 0})
	point.SetCount(10)
	message := expectError(t, g.export(t, agent.Credential, otlpfixture.Proto(md)), http.StatusBadRequest, reasonMalformed)
	if !strings.Contains(message, "explicit bounds") || !strings.Contains(message, "2^0 … 2^26 µs") || !strings.Contains(message, "nothing was written") {
		t.Fatalf("message %q does not say what was wrong", message)
	}
	tables := append([]string{"disk_io", "memory"}, deepTables...)
	for _, table := range tables {
		if n := g.count(t, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("a rejected request wrote %d rows into %s", n, table)
		}
	}
	if n := g.count(t, `SELECT count(*) FROM agents WHERE telemetry_capabilities_at IS NOT NULL OR batch_hwm <> 0`); n != 0 {
		t.Error("a rejected request recorded capabilities or moved the high-water mark")
	}
}

func TestExponentialHistogramsAreRefused(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	md := deepExport(func(int64) otlpfixture.Deep { return deepTelemetry(25) }, 1)
	otlpfixture.Metric(md, 0, "spindle.disk.io.latency").SetEmptyExponentialHistogram().DataPoints().AppendEmpty().SetCount(3)
	message := expectError(t, g.export(t, agent.Credential, otlpfixture.Proto(md)), http.StatusBadRequest, reasonMalformed)
	if !strings.Contains(message, "exponential histogram") {
		t.Fatalf("message %q does not name the problem", message)
	}
}

// expectSampleRowsIncluded checks that the /proc rows of a deep batch are written as usual.
func (g *gateway) expectSampleRowsIncluded(t *testing.T, agent enrolledAgent) {
	t.Helper()
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE org_id = $1 AND server_id = $2`, agent.OrgID, agent.ServerID); n != 4 {
		t.Errorf("%d disk_io rows, want 2 devices x 2 batches", n)
	}
}
