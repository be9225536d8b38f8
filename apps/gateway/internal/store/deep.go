package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

var (
	diskLatencyColumns = append([]string{"time", "org_id", "server_id", "device", "operation", "interval_seconds", "operations", "sum_seconds"},
		bucketColumns()...)
	diskUntimedColumns       = []string{"time", "org_id", "server_id", "device", "operation", "interval_seconds", "untimed_ops"}
	diskSplitColumns         = []string{"time", "org_id", "server_id", "device", "interval_seconds", "split_ops"}
	pageCacheColumns         = []string{"time", "org_id", "server_id", "interval_seconds", "accesses", "misses"}
	pageCacheTopFilesColumns = []string{"org_id", "server_id", "path", "accesses", "misses", "interval_seconds", "seen_at"}
	pgDatabaseColumns        = []string{"time", "org_id", "server_id", "database", "interval_seconds",
		"commits", "rollbacks", "blocks_hit", "blocks_read", "block_read_time_us"}
	pressureColumns = []string{"time", "org_id", "server_id", "interval_seconds",
		"memory_some_us", "memory_full_us", "io_some_us", "io_full_us"}
	writeOptFilesColumns = []string{"org_id", "server_id", "path", "extents", "seen_at"}
	filesystemColumns    = []string{"time", "org_id", "server_id", "mountpoint", "device", "fs_type", "interval_seconds",
		"size_bytes", "free_bytes", "available_bytes"}
	agentSpoolColumns    = []string{"time", "org_id", "server_id", "interval_seconds", "spool_bytes", "pending_batches"}
	holdoutBucketColumns = []string{"time", "org_id", "server_id", "hash_bucket", "interval_seconds",
		"managed_accessed_bytes", "managed_missed_bytes", "control_accessed_bytes", "control_missed_bytes"}
	sqlServerColumns = []string{"time", "org_id", "server_id", "instance", "interval_seconds",
		"batch_requests", "buffer_cache_hit_ratio", "page_life_expectancy_s"}
)

func bucketColumns() []string {
	columns := make([]string, telemetry.LatencyBuckets)
	for i := range columns {
		columns[i] = fmt.Sprintf("bucket_%02d", i)
	}
	return columns
}

// addDeepRows adds the interval-table rows of one batch's deep telemetry to set (one COPY per
// table for the whole transaction).
// server is the agent's server id as uuidValue makes it.
func addDeepRows(set *copySet, org string, server any, batch telemetry.Batch) {
	d := batch.Deep
	for _, r := range d.DiskLatency {
		row := make([]any, 0, len(diskLatencyColumns))
		row = append(row, r.Time, org, server, r.Device, r.Operation, r.IntervalSeconds, r.Operations, r.SumSeconds)
		for _, c := range r.Buckets {
			row = append(row, c)
		}
		set.add("disk_latency", diskLatencyColumns, row)
	}
	for _, r := range d.DiskUntimed {
		set.add("disk_io_untimed", diskUntimedColumns, []any{r.Time, org, server, r.Device, r.Operation, r.IntervalSeconds, r.UntimedOps})
	}
	for _, r := range d.DiskSplit {
		set.add("disk_split_io", diskSplitColumns, []any{r.Time, org, server, r.Device, r.IntervalSeconds, r.SplitOps})
	}
	for _, r := range d.PageCache {
		set.add("page_cache", pageCacheColumns, []any{r.Time, org, server, r.IntervalSeconds, r.Accesses, r.Misses})
	}
	for _, r := range d.PgDatabase {
		set.add("pg_database_stats", pgDatabaseColumns, []any{r.Time, org, server, r.Database, r.IntervalSeconds,
			r.Commits, r.Rollbacks, r.BlocksHit, r.BlocksRead, r.BlockReadTimeMicros})
	}
	for _, r := range d.Pressure {
		set.add("pressure", pressureColumns, []any{r.Time, org, server, r.IntervalSeconds,
			r.MemorySomeMicros, r.MemoryFullMicros, r.IOSomeMicros, r.IOFullMicros})
	}
	for _, r := range d.Filesystems {
		set.add("filesystem", filesystemColumns, []any{r.Time, org, server, r.Mountpoint, r.Device, r.FSType,
			r.IntervalSeconds, r.SizeBytes, r.FreeBytes, r.AvailableBytes})
	}
	for _, r := range d.AgentSpool {
		set.add("agent_spool", agentSpoolColumns, []any{r.Time, org, server, r.IntervalSeconds, r.SpoolBytes, r.PendingBatches})
	}
	for _, r := range d.SQLServer {
		set.add("sqlserver_stats", sqlServerColumns, []any{r.Time, org, server, r.Instance, r.IntervalSeconds,
			r.BatchRequests, r.BufferCacheHitRatio, r.PageLifeExpectancySeconds})
	}
	for _, r := range d.ReadCacheHoldoutBuckets {
		set.add("read_cache_holdout_bucket", holdoutBucketColumns, []any{r.Time, org, server, r.HashBucket, r.IntervalSeconds,
			r.ManagedAccessed, r.ManagedMissed, r.ControlAccessed, r.ControlMissed})
	}
	for _, family := range telemetry.AccelFamilies {
		for _, r := range d.AccelRows(family) {
			set.add(family.Table, family.CopyColumns(), append([]any{r.Time, org, server, r.IntervalSeconds}, r.Values...))
		}
	}
}

// deepRowCount is how many interval-table rows addDeepRows adds for batch.
func deepRowCount(batch telemetry.Batch) int {
	d := batch.Deep
	return len(d.DiskLatency) + len(d.DiskUntimed) + len(d.DiskSplit) + len(d.PageCache) + len(d.PgDatabase) + len(d.Pressure) +
		len(d.Filesystems) + len(d.AgentSpool) + len(d.ReadCache) + len(d.ReadCacheHoldout) + len(d.ReadCacheHoldoutBuckets) + len(d.WriteOpt) + len(d.SQLServer)
}

// writeDeepState writes what is state rather than an interval row, for the batches of one agent
// being written (in ascending sequence), in the caller's transaction: the fragmentation scans,
// the newest page-cache and managed-file lists, and the capabilities of the newest batch that
// reported them.
func writeDeepState(ctx context.Context, tx querier, agent Agent, batches []telemetry.Batch) error {
	var capabilities []string
	var topFiles *telemetry.PageCacheTopFiles
	var writeOptFiles *telemetry.WriteOptFiles
	for _, batch := range batches {
		d := batch.Deep
		if d.Capabilities != nil {
			capabilities = d.Capabilities
		}
		if d.PageCacheTopFiles != nil && (topFiles == nil || !d.PageCacheTopFiles.Time.Before(topFiles.Time)) {
			topFiles = d.PageCacheTopFiles
		}
		if d.WriteOptFiles != nil && (writeOptFiles == nil || !d.WriteOptFiles.Time.Before(writeOptFiles.Time)) {
			writeOptFiles = d.WriteOptFiles
		}
		for _, scan := range d.Fragmentation {
			if err := writeFragmentation(ctx, tx, agent, scan); err != nil {
				return err
			}
		}
	}
	if topFiles != nil {
		if err := replaceTopFiles(ctx, tx, agent, *topFiles); err != nil {
			return err
		}
	}
	if writeOptFiles != nil {
		if err := replaceWriteOptFiles(ctx, tx, agent, *writeOptFiles); err != nil {
			return err
		}
	}
	if capabilities != nil {
		if _, err := tx.Exec(ctx, `
			UPDATE agents SET telemetry_capabilities = $2, telemetry_capabilities_at = now()
			WHERE id = $1`, agent.ID, capabilities); err != nil {
			return fmt.Errorf("record telemetry capabilities: %w", err)
		}
	}
	return nil
}

// writeFragmentation appends the scan summary to the root's history only when it differs from
// the newest stored result (the agent repeats it every interval), and replaces the root's worst
// files only when the list changed, so an unchanged scan costs two reads and no writes.
func writeFragmentation(ctx context.Context, tx querier, agent Agent, scan telemetry.FragmentationScan) error {
	if scan.Summary {
		_, err := tx.Exec(ctx, `
			INSERT INTO fragmentation_scans (time, org_id, server_id, root, files, fragmented_files, extents, excess_extents,
				unsupported_files, scan_duration_ms)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10
			WHERE NOT EXISTS (
				SELECT 1 FROM (
					SELECT files, fragmented_files, extents, excess_extents, unsupported_files, scan_duration_ms FROM fragmentation_scans
					WHERE org_id = $2 AND server_id = $3 AND root = $4 ORDER BY time DESC LIMIT 1
				) newest
				WHERE (newest.files, newest.fragmented_files, newest.extents, newest.excess_extents) = ($5, $6, $7, $8)
				  AND newest.unsupported_files IS NOT DISTINCT FROM $9::bigint
				  AND newest.scan_duration_ms IS NOT DISTINCT FROM $10::bigint)`,
			scan.Time, agent.OrgID, agent.ServerID, scan.Root, scan.Files, scan.FragmentedFiles, scan.Extents, scan.ExcessExtents,
			scan.UnsupportedFiles, scan.ScanDurationMs)
		if err != nil {
			return fmt.Errorf("record fragmentation scan of %s: %w", scan.Root, err)
		}
	}
	if scan.WorstFiles == nil {
		return nil
	}
	rows, err := tx.Query(ctx, `
		SELECT path, extents, size_bytes FROM fragmentation_worst_files
		WHERE org_id = $1 AND server_id = $2 AND root = $3`, agent.OrgID, agent.ServerID, scan.Root)
	if err != nil {
		return fmt.Errorf("read worst files of %s: %w", scan.Root, err)
	}
	stored, err := pgx.CollectRows(rows, pgx.RowToStructByPos[telemetry.FragmentedFile])
	if err != nil {
		return fmt.Errorf("read worst files of %s: %w", scan.Root, err)
	}
	if sameFiles(stored, scan.WorstFiles) {
		return nil
	}
	if _, err := tx.Exec(ctx, `DELETE FROM fragmentation_worst_files WHERE org_id = $1 AND server_id = $2 AND root = $3`,
		agent.OrgID, agent.ServerID, scan.Root); err != nil {
		return fmt.Errorf("replace worst files of %s: %w", scan.Root, err)
	}
	files := make([][]any, 0, len(scan.WorstFiles))
	for _, f := range scan.WorstFiles {
		files = append(files, []any{agent.OrgID, agent.ServerID, scan.Root, f.Path, f.Extents, f.SizeBytes, scan.Time})
	}
	return copyRows(ctx, tx, "fragmentation_worst_files",
		[]string{"org_id", "server_id", "root", "path", "extents", "size_bytes", "seen_at"}, files)
}

// replaceTopFiles makes list the server's page-cache top files.
func replaceTopFiles(ctx context.Context, tx querier, agent Agent, list telemetry.PageCacheTopFiles) error {
	rows := make([][]any, 0, len(list.Files))
	for _, f := range list.Files {
		rows = append(rows, []any{agent.OrgID, agent.ServerID, f.Path, f.Accesses, f.Misses, list.IntervalSeconds, list.Time})
	}
	return replaceNewestList(ctx, tx, agent, "page_cache_top_files", pageCacheTopFilesColumns, list.Time, rows)
}

// replaceWriteOptFiles makes list the server's managed-file extents.
func replaceWriteOptFiles(ctx context.Context, tx querier, agent Agent, list telemetry.WriteOptFiles) error {
	rows := make([][]any, 0, len(list.Files))
	for _, f := range list.Files {
		rows = append(rows, []any{agent.OrgID, agent.ServerID, f.Path, f.Extents, list.Time})
	}
	return replaceNewestList(ctx, tx, agent, "write_opt_files", writeOptFilesColumns, list.Time, rows)
}

// replaceNewestList makes rows the server's list in table (a per-server list with a seen_at
// column, never history), unless the stored list is newer: a batch replayed late must not bring
// back an older list. table and columns are constants of this package, never input.
func replaceNewestList(ctx context.Context, tx querier, agent Agent, table string, columns []string, seenAt time.Time, rows [][]any) error {
	var newer bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE org_id = $1 AND server_id = $2 AND seen_at > $3)`,
		agent.OrgID, agent.ServerID, seenAt).Scan(&newer); err != nil {
		return fmt.Errorf("read %s: %w", table, err)
	}
	if newer {
		return nil
	}
	if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE org_id = $1 AND server_id = $2`, agent.OrgID, agent.ServerID); err != nil {
		return fmt.Errorf("replace %s: %w", table, err)
	}
	return copyRows(ctx, tx, table, columns, rows)
}

func sameFiles(a, b []telemetry.FragmentedFile) bool {
	key := func(f telemetry.FragmentedFile) string {
		return fmt.Sprintf("%s\x00%d\x00%d", f.Path, f.Extents, f.SizeBytes)
	}
	as, bs := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		as[i] = key(a[i])
	}
	for i := range b {
		bs[i] = key(b[i])
	}
	slices.Sort(as)
	slices.Sort(bs)
	return slices.Equal(as, bs)
}
