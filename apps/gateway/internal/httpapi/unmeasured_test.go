package httpapi

import (
	"context"
	"database/sql"
	"net/http"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// A metric the agent does not send (an OS without merge counters or pending-I/O gauge, a host
// without swap, PostgreSQL without track_io_timing, a scan that did not time itself) is stored
// as NULL, not measured, never as 0; what it did send is stored as sent.
func TestMetricsAnAgentDoesNotSendAreStoredAsNull(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	md := deepExport(func(int64) otlpfixture.Deep { return deepTelemetry(25) }, 1)
	otlpfixture.Without(md, "system.disk.merged", "spindle.disk.pending_operations", "system.paging.usage",
		"spindle.memory.dirty", "spindle.db.postgresql.block_read_time", "spindle.fragmentation.scan_duration")
	if resp := g.export(t, agent.Credential, otlpfixture.Proto(md)); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	ctx := context.Background()

	var readOps, readMerged, writeMerged sql.NullInt64
	var inProgress sql.NullInt32
	if err := g.db.QueryRow(ctx, `SELECT read_ops, read_merged, write_merged, in_progress FROM disk_io
		WHERE server_id = $1 AND device = 'sda'`, agent.ServerID).Scan(&readOps, &readMerged, &writeMerged, &inProgress); err != nil {
		t.Fatal(err)
	}
	if readOps != (sql.NullInt64{Int64: 120, Valid: true}) || readMerged.Valid || writeMerged.Valid || inProgress.Valid {
		t.Errorf("disk_io sda: read_ops %+v (want 120), read_merged %+v, write_merged %+v, in_progress %+v (want NULL)", readOps, readMerged, writeMerged, inProgress)
	}

	var total, dirty, swapTotal, swapFree sql.NullInt64
	if err := g.db.QueryRow(ctx, `SELECT total_bytes, dirty_bytes, swap_total_bytes, swap_free_bytes FROM memory WHERE server_id = $1`,
		agent.ServerID).Scan(&total, &dirty, &swapTotal, &swapFree); err != nil {
		t.Fatal(err)
	}
	if total != (sql.NullInt64{Int64: 8 << 30, Valid: true}) || dirty.Valid || swapTotal.Valid || swapFree.Valid {
		t.Errorf("memory: total %+v (want 8 GiB), dirty %+v, swap total %+v, swap free %+v (want NULL)", total, dirty, swapTotal, swapFree)
	}

	nulls := map[string]int{
		`SELECT count(*) FROM pg_database_stats WHERE block_read_time_us IS NULL AND commits = 500`: 1,
		`SELECT count(*) FROM pg_database_stats WHERE block_read_time_us = 0`:                       0,
		`SELECT count(*) FROM fragmentation_scans WHERE scan_duration_ms IS NULL AND extents = 40`:  1,
	}
	for query, want := range nulls {
		if got := g.count(t, query); got != want {
			t.Errorf("%s = %d, want %d", query, got, want)
		}
	}
}

// Only swap used or only swap free leaves the total unknown: used + free needs both.
func TestSwapTotalNeedsBothUsedAndFree(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	md := otlpfixture.Build(sample(1))
	points := otlpfixture.Metric(md, 0, "system.paging.usage").Gauge().DataPoints()
	points.RemoveIf(func(dp pmetric.NumberDataPoint) bool {
		state, _ := dp.Attributes().Get("system.paging.state")
		return state.Str() == "used"
	})
	if resp := g.export(t, agent.Credential, otlpfixture.Proto(md)); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	var swapTotal, swapFree sql.NullInt64
	if err := g.db.QueryRow(context.Background(), `SELECT swap_total_bytes, swap_free_bytes FROM memory WHERE server_id = $1`,
		agent.ServerID).Scan(&swapTotal, &swapFree); err != nil {
		t.Fatal(err)
	}
	if swapTotal.Valid || swapFree != (sql.NullInt64{Int64: 924 << 20, Valid: true}) {
		t.Errorf("swap total %+v (want NULL), swap free %+v (want 924 MiB)", swapTotal, swapFree)
	}
}
