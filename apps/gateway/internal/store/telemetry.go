package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// WriteResult says what a request changed.
type WriteResult struct {
	WrittenBatches   int
	DuplicateBatches int   // at or below the high-water mark: acknowledged, not written again
	PreviousHWM      int64 // the mark before this request: batches at or below it were the duplicates
	DiskIORows       int
	MemoryRows       int
	DeepRows         int // rows of the deep-telemetry tables (deep.go)
	BatchHWM         int64
}

var (
	diskIOColumns = []string{"time", "org_id", "server_id", "device", "interval_seconds",
		"read_ops", "write_ops", "read_bytes", "write_bytes", "read_merged", "write_merged",
		"read_time_ms", "write_time_ms", "io_time_ms", "weighted_io_time_ms", "in_progress"}
	memoryColumns = []string{"time", "org_id", "server_id", "total_bytes", "available_bytes",
		"free_bytes", "cached_bytes", "buffers_bytes", "dirty_bytes", "swap_total_bytes", "swap_free_bytes"}
)

// WriteBatches writes the batches above the agent's high-water mark and advances the mark, in
// one transaction: a batch replayed after a timeout is acknowledged without a second copy, and
// a failure leaves neither rows nor a moved mark behind. The agent row is locked so concurrent
// requests of one agent cannot both pass the same mark.
func (s *Store) WriteBatches(ctx context.Context, agent Agent, batches []telemetry.Batch) (result WriteResult, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return WriteResult{}, fmt.Errorf("begin telemetry transaction: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()

	if err = scopeToOrg(ctx, tx, agent.OrgID); err != nil {
		return WriteResult{}, err
	}
	// Re-checked under the lock: a credential rotated, revoked or expired since authentication
	// (or since a gateway cached it, see Credentials) writes nothing.
	var hwm int64
	var revoked, expired bool
	err = tx.QueryRow(ctx, `
		SELECT batch_hwm, revoked_at IS NOT NULL, credential_expires_at <= now() FROM agents
		WHERE id = $1 AND credential_hash = $2
		FOR UPDATE`, agent.ID, agent.CredentialHash).Scan(&hwm, &revoked, &expired)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return WriteResult{}, ErrUnknownCredential
	case err != nil:
		return WriteResult{}, fmt.Errorf("lock agent: %w", err)
	case revoked:
		return WriteResult{}, ErrRevokedCredential
	case expired:
		return WriteResult{}, ErrExpiredCredential
	}

	result.PreviousHWM = hwm
	ordered := slices.SortedStableFunc(slices.Values(batches), func(a, b telemetry.Batch) int { return cmp.Compare(a.Seq, b.Seq) })
	var diskRows, memoryRows [][]any
	var written []telemetry.Batch
	for _, batch := range ordered {
		if batch.Seq <= hwm {
			result.DuplicateBatches++
			continue
		}
		hwm = batch.Seq
		result.WrittenBatches++
		written = append(written, batch)
		for _, r := range batch.DiskIO {
			diskRows = append(diskRows, []any{r.Time, agent.OrgID, agent.ServerID, r.Device, r.IntervalSeconds,
				r.ReadOps, r.WriteOps, r.ReadBytes, r.WriteBytes, r.ReadMerged, r.WriteMerged,
				r.ReadTimeMs, r.WriteTimeMs, r.IOTimeMs, r.WeightedIOTimeMs, r.InProgress})
		}
		for _, r := range batch.Memory {
			memoryRows = append(memoryRows, []any{r.Time, agent.OrgID, agent.ServerID, r.TotalBytes, r.AvailableBytes,
				r.FreeBytes, r.CachedBytes, r.BuffersBytes, r.DirtyBytes, r.SwapTotalBytes, r.SwapFreeBytes})
		}
	}
	result.BatchHWM = hwm
	result.DiskIORows = len(diskRows)
	result.MemoryRows = len(memoryRows)

	if err = copyRows(ctx, tx, "disk_io", diskIOColumns, diskRows); err != nil {
		return WriteResult{}, err
	}
	if err = copyRows(ctx, tx, "memory", memoryColumns, memoryRows); err != nil {
		return WriteResult{}, err
	}
	if result.DeepRows, err = writeDeep(ctx, tx, agent, written); err != nil {
		return WriteResult{}, err
	}
	curves, err := writeMissRatioCurves(ctx, tx, agent, written)
	if err != nil {
		return WriteResult{}, err
	}
	result.DeepRows += curves
	if result.WrittenBatches > 0 {
		if _, err = tx.Exec(ctx, `UPDATE agents SET batch_hwm = $2 WHERE id = $1`, agent.ID, hwm); err != nil {
			return WriteResult{}, fmt.Errorf("advance batch high-water mark: %w", err)
		}
	}
	var host telemetry.HostInfo
	if len(ordered) > 0 {
		host = ordered[len(ordered)-1].Host
	}
	if err = touchServer(ctx, tx, agent, host); err != nil {
		return WriteResult{}, err
	}
	if err = tx.Commit(ctx); err != nil {
		return WriteResult{}, fmt.Errorf("commit telemetry: %w", err)
	}
	return result, nil
}

func copyRows(ctx context.Context, tx pgx.Tx, table string, columns []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy %d rows into %s: %w", len(rows), table, err)
	}
	return nil
}

// touchServer marks the server seen and records what its agent reports about the host; an
// attribute the agent did not send leaves the stored value alone.
func touchServer(ctx context.Context, tx pgx.Tx, agent Agent, host telemetry.HostInfo) error {
	_, err := tx.Exec(ctx, `
		UPDATE servers SET
			last_seen_at  = now(),
			hostname      = COALESCE(NULLIF($3, ''), hostname),
			os            = COALESCE(NULLIF($4, ''), os),
			os_version    = COALESCE(NULLIF($5, ''), os_version),
			kernel        = COALESCE(NULLIF($6, ''), kernel),
			arch          = COALESCE(NULLIF($7, ''), arch),
			agent_version = COALESCE(NULLIF($8, ''), agent_version)
		WHERE id = $1 AND org_id = $2`,
		agent.ServerID, agent.OrgID, host.Hostname, host.OS, host.OSVersion, host.Kernel, host.Arch, host.AgentVersion)
	if err != nil {
		return fmt.Errorf("update server last seen: %w", err)
	}
	return nil
}
