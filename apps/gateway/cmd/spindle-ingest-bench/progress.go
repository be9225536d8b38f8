package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// rollupSample is the plain-mode rollup queue at one moment: how many pending ranges, and how
// long the oldest has waited (how far the 1-minute aggregates lag the raw rows).
type rollupSample struct {
	Pending   int64
	OldestAge time.Duration
	Samples   int // for the worst of a run: how many samples it is the worst of
	// TimescaleDB mode: the longest any 1-minute aggregate went without a successful refresh
	// start (its committed raw rows waited at most this long), the most pending invalidation
	// ranges, and the samples taken before any refresh had succeeded.
	Timescale       bool
	Unmaterialised  time.Duration
	PendingRanges   int64
	WatermarkLag    time.Duration // in sample time
	NotYetRefreshed int
}

func sampleRollup(ctx context.Context, db *pgxpool.Pool) (rollupSample, bool) {
	var s rollupSample
	var ageSeconds float64
	err := db.QueryRow(ctx, `SELECT count(*), coalesce(extract(epoch FROM now() - min(queued_at)), 0) FROM rollup_pending`).
		Scan(&s.Pending, &ageSeconds)
	s.OldestAge = time.Duration(ageSeconds * float64(time.Second))
	return s, err == nil
}

// progress prints, every interval until ctx ends, the batches acknowledged in that interval and
// the rollup queue, and returns the largest queue and age seen.
func progress(ctx context.Context, db *pgxpool.Pool, acknowledged *atomic.Int64, interval time.Duration) (worst rollupSample) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	start, last := time.Now(), acknowledged.Load()
	for {
		select {
		case <-ctx.Done():
			return worst
		case now := <-ticker.C:
			n := acknowledged.Load()
			line := fmt.Sprintf("  %4.0f s  %6.0f batches/s", now.Sub(start).Seconds(), float64(n-last)/interval.Seconds())
			last = n
			if s, ok := sampleRollup(ctx, db); ok {
				line += fmt.Sprintf("  rollup_pending %7d  oldest %s", s.Pending, s.OldestAge.Round(time.Second))
				worst.Pending = max(worst.Pending, s.Pending)
				worst.OldestAge = max(worst.OldestAge, s.OldestAge)
				worst.Samples++
			} else if caggs, ok := sampleCaggs(ctx, db); ok {
				worst.Samples++
				worst.Timescale = true
				for _, c := range caggs {
					line += "\n        " + c.String()
					worst.PendingRanges = max(worst.PendingRanges, c.PendingRanges)
					if c.Unmaterialised < 0 {
						worst.NotYetRefreshed++
					}
					worst.Unmaterialised = max(worst.Unmaterialised, c.Unmaterialised)
					if lag, ok := c.WatermarkLag(); ok {
						worst.WatermarkLag = max(worst.WatermarkLag, lag)
					}
				}
			}
			fmt.Println(line)
		}
	}
}
