package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

// TestWriteBatchesStoresUntimedIOs writes untimed counts both ways a group writes a table (a few
// rows in the INSERT … unnest statement, 300 by binary COPY) and checks every value, a measured 0
// kept as a row, and the plain-mode rollup queue entry for disk_io_untimed.
func TestWriteBatchesStoresUntimedIOs(t *testing.T) {
	for _, devices := range []int{1, 100} {
		t.Run(fmt.Sprintf("%d devices", devices), func(t *testing.T) {
			s := openTestStore(t)
			testdb.Org(t, s.pool, "org-a")
			agent := authenticate(t, s, enrol(t, s, "org-a", "machine-1").Credential)
			batch := telemetry.Batch{Seq: 1}
			for d := range devices {
				device := fmt.Sprintf("sd%03d", d)
				batch.Deep.DiskUntimed = append(batch.Deep.DiskUntimed,
					telemetry.DiskUntimedRow{Time: t0, Device: device, Operation: "discard", IntervalSeconds: 10, UntimedOps: 2},
					telemetry.DiskUntimedRow{Time: t0, Device: device, Operation: "read", IntervalSeconds: 10, UntimedOps: 0},
					telemetry.DiskUntimedRow{Time: t0, Device: device, Operation: "write", IntervalSeconds: 10, UntimedOps: int64(d + 1)})
			}
			if _, err := s.WriteBatches(context.Background(), agent, []telemetry.Batch{batch}); err != nil {
				t.Fatal(err)
			}
			// Every query is scoped to the agent's server and the interval ($1, $2, $3).
			checks := map[string]int{
				`SELECT count(*) FROM disk_io_untimed WHERE org_id = $1 AND server_id = $2 AND time = $3 AND interval_seconds = 10`:                              3 * devices,
				`SELECT count(*) FROM disk_io_untimed WHERE org_id = $1 AND server_id = $2 AND time = $3 AND operation = 'read' AND untimed_ops = 0`:             devices,
				`SELECT sum(untimed_ops) FROM disk_io_untimed WHERE org_id = $1 AND server_id = $2 AND time = $3 AND operation = 'discard'`:                      2 * devices,
				`SELECT sum(untimed_ops) FROM disk_io_untimed WHERE org_id = $1 AND server_id = $2 AND time = $3 AND operation = 'write'`:                        devices * (devices + 1) / 2,
				`SELECT count(*) FROM rollup_pending WHERE org_id = $1 AND server_id = $2 AND first_time = $3 AND last_time = $3 AND source = 'disk_io_untimed'`: 1,
			}
			for query, want := range checks {
				var got int
				if err := s.pool.QueryRow(context.Background(), query, agent.OrgID, agent.ServerID, t0).Scan(&got); err != nil {
					t.Fatalf("%s: %v", query, err)
				}
				if got != want {
					t.Errorf("%s = %d, want %d", query, got, want)
				}
			}
		})
	}
}
