package store

import (
	"context"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

// accelRow builds a row of family from column → value; columns left out stay nil (not sent).
func accelRow(family telemetry.AccelFamily, at time.Time, set map[string]any) telemetry.AccelRow {
	row := telemetry.AccelRow{Time: at, IntervalSeconds: 10, Values: make([]any, len(family.Columns))}
	for i, c := range family.Columns {
		switch v := set[c.Column].(type) {
		case int64:
			row.Values[i] = &v
		case float64:
			row.Values[i] = &v
		}
	}
	return row
}

func accelBatch(seq int64, at time.Time, hits int64) telemetry.Batch {
	return telemetry.Batch{Seq: seq, Deep: telemetry.Deep{Intervals: telemetry.Intervals{
		ReadCache: []telemetry.AccelRow{accelRow(telemetry.ReadCacheFamily, at, map[string]any{
			"budget_bytes": int64(1 << 30), "misses_bytes": int64(4096), "hits_bytes": hits,
			"memory_read_latency_seconds": 0.0000015, "memory_read_latency_samples": int64(2048),
		})},
		ReadCacheHoldout: []telemetry.AccelRow{accelRow(telemetry.ReadCacheHoldoutFamily, at, map[string]any{
			"holdout_percent": int64(10), "managed_accessed_bytes": hits, "managed_missed_bytes": int64(4096),
			"control_accessed_bytes": int64(4096), "control_missed_bytes": int64(0), "own_read_bytes": int64(0), "own_page_hit_bytes": int64(0),
		})},
		WriteOpt: []telemetry.AccelRow{accelRow(telemetry.WriteOptFamily, at, map[string]any{
			"preallocated_bytes": int64(1 << 20), "managed_grown_bytes": int64(65536), "managed_extents_added": int64(0),
		})},
		WriteOptTrimmed:         []telemetry.AccelRow{accelRow(telemetry.WriteOptTrimmedFamily, at, map[string]any{"trimmed_bytes": int64(1 << 19)})},
		ReadCacheHoldoutBuckets: holdoutBuckets(at, hits),
	},
		WriteOptFiles: &telemetry.WriteOptFiles{Time: at, Files: []telemetry.WriteOptFile{{Path: "/var/log/a.log", Extents: 2}}},
	}}
}

// holdoutBuckets puts the managed accesses in bucket 3, the control's in bucket 9, zeros elsewhere.
func holdoutBuckets(at time.Time, hits int64) []telemetry.ReadCacheHoldoutBucketRow {
	rows := make([]telemetry.ReadCacheHoldoutBucketRow, telemetry.HoldoutBuckets)
	for b := range rows {
		rows[b] = telemetry.ReadCacheHoldoutBucketRow{Time: at, HashBucket: int16(b), IntervalSeconds: 10}
	}
	rows[3].ManagedAccessed, rows[3].ManagedMissed = hits, 4096
	rows[9].ControlAccessed = 4096
	return rows
}

func TestWriteBatchesStoresAccelerationRowsWithNullForUnsent(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	testdb.Org(t, s.pool, "org-b")
	a := authenticate(t, s, enrol(t, s, "org-a", "machine-a").Credential)
	b := authenticate(t, s, enrol(t, s, "org-b", "machine-b").Credential)
	ctx := context.Background()

	if _, err := s.WriteBatches(ctx, a, []telemetry.Batch{accelBatch(1, t0, 8192)}); err != nil {
		t.Fatal(err)
	}
	var budget, hits, misses, samples, resident, pinned *int64
	var latency *float64
	if err := s.pool.QueryRow(ctx, `SELECT budget_bytes, hits_bytes, misses_bytes, memory_read_latency_seconds, memory_read_latency_samples,
		resident_bytes, pinned_bytes FROM read_cache WHERE org_id = 'org-a' AND server_id = $1`, a.ServerID).
		Scan(&budget, &hits, &misses, &latency, &samples, &resident, &pinned); err != nil {
		t.Fatal(err)
	}
	if budget == nil || *budget != 1<<30 || hits == nil || *hits != 8192 || misses == nil || *misses != 4096 ||
		latency == nil || *latency != 0.0000015 || samples == nil || *samples != 2048 {
		t.Fatalf("read_cache sent values: budget %v hits %v misses %v latency %v samples %v", budget, hits, misses, latency, samples)
	}
	if resident != nil || pinned != nil {
		t.Fatalf("unsent resident/pinned must be NULL, got %v / %v", resident, pinned)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout WHERE holdout_percent = 10 AND managed_accessed_bytes = 8192
		AND control_missed_bytes = 0 AND server_id = $1`, a.ServerID); n != 1 {
		t.Fatalf("%d read_cache_holdout rows with the control group's counts, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout_bucket WHERE server_id = $1`, a.ServerID); n != 16 {
		t.Fatalf("%d read_cache_holdout_bucket rows, want the interval's 16", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout_bucket WHERE server_id = $1 AND org_id = 'org-a' AND interval_seconds = 10
		AND ((hash_bucket = 3 AND managed_accessed_bytes = 8192 AND managed_missed_bytes = 4096 AND control_accessed_bytes = 0)
		  OR (hash_bucket = 9 AND control_accessed_bytes = 4096 AND managed_accessed_bytes = 0))`, a.ServerID); n != 2 {
		t.Fatalf("%d read_cache_holdout_bucket rows hold buckets 3 and 9 as sent, want 2", n)
	}
	if n := count(t, s, `SELECT count(*) FROM write_opt WHERE managed_extents_added = 0 AND unmanaged_grown_bytes IS NULL
		AND files_defragmented IS NULL AND preallocated_bytes = 1048576 AND server_id = $1`, a.ServerID); n != 1 {
		t.Fatalf("%d write_opt rows with the sent 0 kept and the unsent columns NULL, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM write_opt_trimmed WHERE trimmed_bytes = 524288 AND interval_seconds = 10 AND server_id = $1`, a.ServerID); n != 1 {
		t.Fatalf("%d write_opt_trimmed rows of 512 KiB, want 1 (a generic family is copied like the others)", n)
	}

	// A replay writes nothing twice; a newer batch replaces the managed-file list, an older
	// (late) list never brings back an outdated one.
	newer := accelBatch(2, t0.Add(10*time.Second), 0)
	newer.Deep.WriteOptFiles.Files = []telemetry.WriteOptFile{{Path: "/var/log/b.log", Extents: 5}}
	result, err := s.WriteBatches(ctx, a, []telemetry.Batch{accelBatch(1, t0, 8192), newer})
	if err != nil {
		t.Fatal(err)
	}
	if result.WrittenBatches != 1 || result.DuplicateBatches != 1 {
		t.Fatalf("result = %+v", result)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache WHERE server_id = $1`, a.ServerID); n != 2 {
		t.Fatalf("%d read_cache rows after a replay, want 2", n)
	}
	if n := count(t, s, `SELECT count(*) FROM write_opt WHERE server_id = $1`, a.ServerID); n != 2 {
		t.Fatalf("%d write_opt rows after a replay, want 2", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout WHERE server_id = $1`, a.ServerID); n != 2 {
		t.Fatalf("%d read_cache_holdout rows after a replay, want 2", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout_bucket WHERE server_id = $1`, a.ServerID); n != 32 {
		t.Fatalf("%d read_cache_holdout_bucket rows after a replay, want 2 × 16", n)
	}
	late := accelBatch(3, t0.Add(-time.Minute), 1)
	late.Deep.WriteOptFiles.Files = []telemetry.WriteOptFile{{Path: "/var/log/old.log", Extents: 40}}
	if _, err := s.WriteBatches(ctx, a, []telemetry.Batch{late}); err != nil {
		t.Fatal(err)
	}
	var path string
	var extents int64
	if err := s.pool.QueryRow(ctx, `SELECT path, extents FROM write_opt_files WHERE org_id = 'org-a' AND server_id = $1`, a.ServerID).Scan(&path, &extents); err != nil {
		t.Fatal(err)
	}
	if path != "/var/log/b.log" || extents != 5 {
		t.Fatalf("write_opt_files holds %s (%d extents); want the newest list, /var/log/b.log", path, extents)
	}

	// Another organisation's agent writes its own rows, under its own org and server only.
	if _, err := s.WriteBatches(ctx, b, []telemetry.Batch{accelBatch(1, t0, 77)}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache WHERE org_id = 'org-b' AND server_id = $1 AND hits_bytes = 77`, b.ServerID); n != 1 {
		t.Fatalf("org-b has %d read_cache rows, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout WHERE org_id = 'org-a' AND managed_accessed_bytes = 77`); n != 0 {
		t.Fatalf("org-b's control-group row landed under org-a (%d rows)", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout_bucket WHERE org_id = 'org-a' AND managed_accessed_bytes = 77`); n != 0 {
		t.Fatalf("org-b's bucket rows landed under org-a (%d rows)", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache_holdout_bucket WHERE org_id = 'org-b' AND server_id = $1 AND managed_accessed_bytes = 77`, b.ServerID); n != 1 {
		t.Fatalf("org-b has %d bucket rows with its managed accesses, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM read_cache WHERE org_id = 'org-a' AND hits_bytes = 77`); n != 0 {
		t.Fatalf("org-b's row landed under org-a (%d rows)", n)
	}
	if n := count(t, s, `SELECT count(*) FROM write_opt_files WHERE org_id = 'org-a'`); n != 1 {
		t.Fatalf("org-b's list replaced org-a's (%d rows left for org-a)", n)
	}
}
