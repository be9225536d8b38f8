package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// rawCopyResult is the baseline: the same rows, written with binary COPY and nothing else.
type rawCopyResult struct {
	Values, Rows int64
	Seconds      float64
}

// rawCopy measures binary COPY (pgx CopyFrom) of exactly the rows the gateway writes for the
// benchmark's batches (store.IntervalCopies of the mapped batches), into copies of the raw
// tables made with LIKE … INCLUDING ALL (same columns, constraints and indexes, no triggers), from
// copiers connections at once, chunk batches per COPY and transaction, for duration.
func rawCopy(ctx context.Context, db *pgxpool.Pool, agents []*agent, copiers, chunk int, duration time.Duration, firstTime time.Time) (rawCopyResult, error) {
	var batches []telemetry.Batch
	var owners []store.Agent
	for i := 0; len(batches) < chunk; i++ {
		a := agents[i%len(agents)]
		body, err := buildBatch(a.Hostname, int64(i+1), firstTime.Add(time.Duration(i)*batchInterval))
		if err != nil {
			return rawCopyResult{}, err
		}
		md, err := ingest.Decode(body, ingest.Protobuf)
		if err != nil {
			return rawCopyResult{}, err
		}
		request, err := ingest.Map(md)
		if err != nil {
			return rawCopyResult{}, err
		}
		batches = append(batches, request.Batches...)
		owners = append(owners, store.Agent{OrgID: "raw-copy", ServerID: a.ServerID})
	}
	var chunkCopies []store.TableCopy
	for i, b := range batches {
		for _, c := range store.IntervalCopies(owners[i], []telemetry.Batch{b}) {
			merged := false
			for j := range chunkCopies {
				if chunkCopies[j].Table == c.Table {
					chunkCopies[j].Rows = append(chunkCopies[j].Rows, c.Rows...)
					merged = true
				}
			}
			if !merged {
				chunkCopies = append(chunkCopies, c)
			}
		}
	}
	for _, c := range chunkCopies {
		if _, err := db.Exec(ctx, fmt.Sprintf(`DROP TABLE IF EXISTS ingest_bench_%[1]s; CREATE TABLE ingest_bench_%[1]s (LIKE %[1]s INCLUDING ALL)`, c.Table)); err != nil {
			return rawCopyResult{}, fmt.Errorf("create the raw COPY target for %s: %w", c.Table, err)
		}
	}
	defer func() {
		for _, c := range chunkCopies {
			_, _ = db.Exec(context.WithoutCancel(ctx), fmt.Sprintf(`DROP TABLE IF EXISTS ingest_bench_%s`, c.Table))
		}
	}()

	var values, rows atomic.Int64
	var firstErr error
	var mu sync.Mutex
	runCtx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < copiers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				err := pgx.BeginFunc(runCtx, db, func(tx pgx.Tx) error {
					for _, c := range chunkCopies {
						if _, err := tx.CopyFrom(runCtx, pgx.Identifier{"ingest_bench_" + c.Table}, c.Columns, pgx.CopyFromRows(c.Rows)); err != nil {
							return err
						}
					}
					return nil
				})
				if runCtx.Err() != nil {
					return // the run ended mid-COPY: not counted
				}
				if err != nil {
					mu.Lock()
					firstErr = fmt.Errorf("raw COPY: %w", err)
					mu.Unlock()
					return
				}
				for _, c := range chunkCopies {
					values.Add(int64(len(c.Rows) * len(c.Columns)))
					rows.Add(int64(len(c.Rows)))
				}
			}
		}()
	}
	wg.Wait()
	return rawCopyResult{Values: values.Load(), Rows: rows.Load(), Seconds: time.Since(start).Seconds()}, firstErr
}
