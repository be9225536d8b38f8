package ingest

import (
	"cmp"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

type diskColumn int

const (
	readOps diskColumn = iota
	writeOps
	readBytes
	writeBytes
	readMerged
	writeMerged
	readTimeMs
	writeTimeMs
	ioTimeMs
	weightedIOTimeMs
	inProgress
	diskColumnCount
)

// diskMetric says which disk_io column(s) an OTLP metric fills (docs/metrics.md, "Disk I/O").
type diskMetric struct {
	shape   shape
	unit    string
	seconds bool // the value travels in seconds and is stored in milliseconds
	// Either read/write split by disk.io.direction, or a single column.
	read, write diskColumn
	column      diskColumn
	byDirection bool
}

var diskMetrics = map[string]diskMetric{
	"system.disk.operations":          {shape: deltaCounter, unit: "{operation}", byDirection: true, read: readOps, write: writeOps},
	"system.disk.io":                  {shape: deltaCounter, unit: "By", byDirection: true, read: readBytes, write: writeBytes},
	"system.disk.merged":              {shape: deltaCounter, unit: "{operation}", byDirection: true, read: readMerged, write: writeMerged},
	"system.disk.operation_time":      {shape: deltaCounter, unit: "s", seconds: true, byDirection: true, read: readTimeMs, write: writeTimeMs},
	"system.disk.io_time":             {shape: deltaCounter, unit: "s", seconds: true, column: ioTimeMs},
	"spindle.disk.weighted_io_time":   {shape: deltaCounter, unit: "s", seconds: true, column: weightedIOTimeMs},
	"spindle.disk.pending_operations": {shape: level, unit: "{operation}", column: inProgress},
}

type diskKey struct {
	device string
	time   pcommon.Timestamp
}

// diskDraft collects the points of one device at one time into one wide row. A column nobody
// sent is not measured (an OS without merge counters, for example) and stored as NULL; the
// interval must come from at least one delta counter.
type diskDraft struct {
	start  pcommon.Timestamp
	values [diskColumnCount]int64
	filled [diskColumnCount]bool
}

// diskRows holds the drafts by value (small enough to sit in the map itself: no allocation per
// device and time).
type diskRows map[diskKey]diskDraft

func (rows diskRows) add(m *otlp.Metric, spec diskMetric) error {
	return eachPoint(m, spec.shape, spec.unit, func(dp *otlp.NumberPoint) error { return rows.addPoint(dp, spec) })
}

func (rows diskRows) addPoint(dp *otlp.NumberPoint, spec diskMetric) error {
	device, err := stringAttribute(dp, "system.device")
	if err != nil {
		return err
	}
	column := spec.column
	if spec.byDirection {
		direction, err := stringAttribute(dp, "disk.io.direction")
		if err != nil {
			return err
		}
		switch direction {
		case "read":
			column = spec.read
		case "write":
			column = spec.write
		default:
			return fmt.Errorf("disk.io.direction is %q; expected \"read\" or \"write\"", direction)
		}
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	value, err := diskValue(dp, spec)
	if err != nil {
		return err
	}
	if column == inProgress && value > math.MaxInt32 {
		return fmt.Errorf("value %d is too large for in-flight operations", value)
	}

	key := diskKey{device: device, time: dp.Time}
	draft := rows[key]
	if draft.filled[column] {
		return fmt.Errorf("device %s has two points for the same column at %s", device, dp.Time)
	}
	draft.values[column] = value
	draft.filled[column] = true
	if spec.shape == deltaCounter {
		if err := draft.setInterval(dp); err != nil {
			return err
		}
	}
	rows[key] = draft
	return nil
}

func diskValue(dp *otlp.NumberPoint, spec diskMetric) (int64, error) {
	if spec.seconds {
		return millisFromSecondsValue(dp)
	}
	return countValue(dp)
}

func (d *diskDraft) setInterval(dp *otlp.NumberPoint) error {
	start := dp.Start
	if start == 0 {
		return fmt.Errorf("the delta point has no start time, so its interval is unknown")
	}
	if start >= dp.Time {
		return fmt.Errorf("the interval is empty or negative (start %s, end %s)", start, dp.Time)
	}
	if d.start != 0 && d.start != start {
		return fmt.Errorf("points of one sample disagree on the interval start (%s and %s); all points of one sample must share start and end time", d.start, start)
	}
	d.start = start
	return nil
}

// rows returns the finished rows ordered by time, then device.
func (rows diskRows) rows() ([]telemetry.DiskIORow, error) {
	out := make([]telemetry.DiskIORow, 0, len(rows))
	for key, draft := range rows {
		if draft.start == 0 {
			return nil, fmt.Errorf("device %s at %s has no delta counter, so the interval is unknown", key.device, key.time)
		}
		v := func(c diskColumn) telemetry.Measured {
			return telemetry.Measured{V: draft.values[c], Valid: draft.filled[c]}
		}
		out = append(out, telemetry.DiskIORow{
			Time:             key.time.AsTime().UTC(),
			Device:           key.device,
			IntervalSeconds:  time.Duration(key.time - draft.start).Seconds(),
			ReadOps:          v(readOps),
			WriteOps:         v(writeOps),
			ReadBytes:        v(readBytes),
			WriteBytes:       v(writeBytes),
			ReadMerged:       v(readMerged),
			WriteMerged:      v(writeMerged),
			ReadTimeMs:       v(readTimeMs),
			WriteTimeMs:      v(writeTimeMs),
			IOTimeMs:         v(ioTimeMs),
			WeightedIOTimeMs: v(weightedIOTimeMs),
			InProgress:       sql.Null[int32]{V: int32(draft.values[inProgress]), Valid: draft.filled[inProgress]},
		})
	}
	slices.SortFunc(out, func(a, b telemetry.DiskIORow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Device, b.Device))
	})
	return out, nil
}
