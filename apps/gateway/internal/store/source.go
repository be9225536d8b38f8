package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// SourceConvert turns a Collector source's export into rows against its series' last points
// (ingest.SourcePlan.Apply); its error means the export is invalid and nothing is written.
type SourceConvert func(last map[string]telemetry.SeriesPoint) (telemetry.Batch, []telemetry.SeriesPoint, error)

// InvalidSourceError is a Collector source's export that SourceConvert refused.
type InvalidSourceError struct{ Err error }

func (e *InvalidSourceError) Error() string { return e.Err.Error() }
func (e *InvalidSourceError) Unwrap() error { return e.Err }

// WriteSource writes an export of a Collector source (no batch sequence, cumulative counters;
// docs/agent-protocol.md) in one transaction: it locks the agent row (which orders this
// server's exports across gateways), reads the last points of the export's series, converts,
// copies the rows, stores the new last points and marks the server seen. Points at or before a
// series' last point are dropped by convert, so a batch the Collector sends again writes
// nothing twice: at least once, duplicates removed by series and time.
func (s *Store) WriteSource(ctx context.Context, agent Agent, keys []string, convert SourceConvert) (result WriteResult, err error) {
	pooled, err := s.pool.Acquire(ctx)
	if err != nil {
		return WriteResult{}, fmt.Errorf("begin telemetry transaction: %w", err)
	}
	// As in writeGroup: a connection left inside a transaction is closed by Release, not reused.
	defer pooled.Release()
	conn := pooled.Conn()
	defer func() {
		if err != nil {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
	}()
	marks, err := beginAndLockAgents(ctx, conn, []Member{{Agent: agent}})
	if err != nil {
		return WriteResult{}, err
	}
	if err = marks[agent.ID].refusal(agent); err != nil {
		return WriteResult{}, err
	}
	last, err := readSeries(ctx, conn, agent, keys)
	if err != nil {
		return WriteResult{}, err
	}
	batch, series, err := convert(last)
	if err != nil {
		return WriteResult{}, &InvalidSourceError{Err: err}
	}
	set := newCopySet()
	addIntervalRows(set, agent, batch)
	types, err := s.columnTypes(ctx, conn, set.writtenTables())
	if err != nil {
		return WriteResult{}, err
	}
	if err = set.copyLarge(ctx, conn, types); err != nil {
		return WriteResult{}, err
	}
	if err = writeDeepState(ctx, conn, agent, []telemetry.Batch{batch}); err != nil {
		return WriteResult{}, err
	}
	closing := &pgx.Batch{}
	var queued []string
	set.queueInserts(closing, &queued, types)
	set.queueRollupRanges(closing, &queued) // the transaction set spindle.rollups_queued
	if len(series) > 0 {
		queueStoreSeries(closing, agent, series)
		queued = append(queued, "store cumulative series")
	}
	if queueTouchServers(closing, []Agent{agent}, map[string]telemetry.HostInfo{agent.ServerID: batch.Host}) {
		queued = append(queued, "mark the server seen")
	}
	if err = runPipeline(ctx, conn, closing, queued); err != nil {
		return WriteResult{}, err
	}
	if _, err = conn.Exec(ctx, "COMMIT"); err != nil {
		return WriteResult{}, fmt.Errorf("commit telemetry: %w", err)
	}
	return WriteResult{WrittenBatches: 1, DiskIORows: len(batch.DiskIO), MemoryRows: len(batch.Memory),
		DeepRows: deepRowCount(batch)}, nil
}

// IsInvalidSource reports whether err is a Collector source's export refused as invalid.
func IsInvalidSource(err error) bool {
	var invalid *InvalidSourceError
	return errors.As(err, &invalid)
}

func readSeries(ctx context.Context, tx querier, agent Agent, keys []string) (map[string]telemetry.SeriesPoint, error) {
	rows, err := tx.Query(ctx, `
		SELECT series_key, start_unix_nano, last_unix_nano, last_int, last_double
		FROM cumulative_series
		WHERE org_id = $1 AND server_id = $2 AND series_key = ANY($3::text[])`, agent.OrgID, agent.ServerID, keys)
	if err != nil {
		return nil, fmt.Errorf("read cumulative series: %w", err)
	}
	defer rows.Close()
	last := make(map[string]telemetry.SeriesPoint, len(keys))
	for rows.Next() {
		var p telemetry.SeriesPoint
		var i *int64
		var d *float64
		if err := rows.Scan(&p.Key, &p.StartUnixNano, &p.TimeUnixNano, &i, &d); err != nil {
			return nil, fmt.Errorf("read cumulative series: %w", err)
		}
		if d != nil {
			p.IsDouble, p.Double = true, *d
		} else if i != nil {
			p.Int = *i
		}
		last[p.Key] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read cumulative series: %w", err)
	}
	return last, nil
}

// queueStoreSeries upserts the series' new last points in one statement.
func queueStoreSeries(batch *pgx.Batch, agent Agent, series []telemetry.SeriesPoint) {
	if len(series) == 0 {
		return
	}
	keys := make([]string, len(series))
	starts, times := make([]int64, len(series)), make([]int64, len(series))
	ints, doubles := make([]*int64, len(series)), make([]*float64, len(series))
	for i, p := range series {
		keys[i], starts[i], times[i] = p.Key, p.StartUnixNano, p.TimeUnixNano
		if p.IsDouble {
			doubles[i] = &p.Double
		} else {
			ints[i] = &p.Int
		}
	}
	batch.Queue(`
		INSERT INTO cumulative_series (org_id, server_id, series_key, start_unix_nano, last_unix_nano, last_int, last_double)
		SELECT $1, $2, k, s, t, i, d
		FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::double precision[]) AS u(k, s, t, i, d)
		ON CONFLICT (org_id, server_id, series_key) DO UPDATE SET
			start_unix_nano = EXCLUDED.start_unix_nano, last_unix_nano = EXCLUDED.last_unix_nano,
			last_int = EXCLUDED.last_int, last_double = EXCLUDED.last_double`,
		agent.OrgID, agent.ServerID, keys, starts, times, ints, doubles)
}
