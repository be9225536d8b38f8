package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// untimedMetric is spindle.disk.io.untimed: the block I/Os a disk completed by its own counters
// that spindle.disk.io.latency does not hold, stored in disk_io_untimed next to disk_latency
// with the same keys (device, operation, interval end).
var untimedMetric = catalogue.MustLookup("spindle.disk.io.untimed")

type untimedRows map[latencyKey]telemetry.DiskUntimedRow

func (rows untimedRows) add(m *otlp.Metric) error {
	return eachPoint(m, deltaCounter, untimedMetric.Unit, rows.addPoint)
}

func (rows untimedRows) addPoint(dp *otlp.NumberPoint) error {
	device, operation, err := latencyOperation(dp.Attributes)
	if err != nil {
		return err
	}
	if operation == "flush" {
		// The disks' counters include flushes the kernel answered without issuing them, so the
		// agent never counts untimed flushes; a producer that does means something else.
		return fmt.Errorf("spindle.disk.operation is flush; untimed I/Os are counted for reads, writes and discards only (docs/metrics.md)")
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	start, err := intervalStart(dp, 0)
	if err != nil {
		return err
	}
	n, err := countValue(dp)
	if err != nil {
		return err
	}
	key := latencyKey{device: device, operation: operation, time: dp.Time}
	if _, dup := rows[key]; dup {
		return fmt.Errorf("device %s has two %s untimed counts at %s", device, operation, dp.Time)
	}
	rows[key] = telemetry.DiskUntimedRow{Time: dp.Time.AsTime().UTC(), Device: device, Operation: operation,
		IntervalSeconds: time.Duration(dp.Time - start).Seconds(), UntimedOps: n}
	return nil
}

// rows returns the counts ordered by time, device, operation, after checking each against the
// latency histogram of the same device, operation and interval end: both describe one interval
// of the disk, so their starts must agree.
func (rows untimedRows) rows(latency *latencyRows) ([]telemetry.DiskUntimedRow, error) {
	out := make([]telemetry.DiskUntimedRow, 0, len(rows))
	for key, row := range rows {
		if i, ok := latency.index[key]; ok && latency.list[i].IntervalSeconds != row.IntervalSeconds {
			h := latency.list[i]
			return nil, fmt.Errorf("device %s at %s: the %s untimed count covers %g s and the latency histogram %g s; both must share the interval",
				key.device, key.time, key.operation, row.IntervalSeconds, h.IntervalSeconds)
		}
		out = append(out, row)
	}
	slices.SortFunc(out, func(a, b telemetry.DiskUntimedRow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Device, b.Device), cmp.Compare(a.Operation, b.Operation))
	})
	return out, nil
}
