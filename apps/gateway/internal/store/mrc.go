package store

import (
	"context"
	"fmt"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// writeMissRatioCurves inserts the batches' curves into cache_mrc in the caller's transaction.
// A curve already stored for the same server, curve, scope and window end (a batch number reused
// by a wiped agent) is left as it is: the first word on a window stands.
func writeMissRatioCurves(ctx context.Context, tx querier, agent Agent, batches []telemetry.Batch) (int, error) {
	rows := 0
	for _, batch := range batches {
		for _, c := range batch.MissRatioCurves {
			if _, err := tx.Exec(ctx, `
				INSERT INTO cache_mrc (org_id, server_id, time, window_seconds, curve, scope, sample_rate, sampled_accesses, sizes_bytes, hit_ratios)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
				ON CONFLICT (org_id, server_id, curve, scope, time) DO NOTHING`,
				agent.OrgID, agent.ServerID, c.Time, c.WindowSeconds, c.Curve, c.Scope, c.SampleRate, c.SampledAccesses,
				c.SizesBytes, c.HitRatios); err != nil {
				return 0, fmt.Errorf("store the %s miss-ratio curve %q at %s: %w", c.Curve, c.Scope, c.Time, err)
			}
			rows++
		}
	}
	return rows, nil
}
