package ingest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// File-system space and the agent's spool backlog (docs/metrics.md, "File systems" and "Agent
// spool"): gauges stamped with the tick's bounds, one filesystem row per mount point and
// interval from system.filesystem.limit and the three states of system.filesystem.usage, one
// agent_spool row per interval from spindle.agent.spool.size and .batches.

var (
	filesystemLimitMetric = catalogue.MustLookup("system.filesystem.limit")
	filesystemUsageMetric = catalogue.MustLookup("system.filesystem.usage")
	spoolSizeMetric       = catalogue.MustLookup("spindle.agent.spool.size")
	spoolBatchesMetric    = catalogue.MustLookup("spindle.agent.spool.batches")
)

// The parts of a filesystem row, in the order filesystemDraft.values holds them.
const (
	fsSize = iota
	fsUsed
	fsFree
	fsReserved
	fsParts
)

var fsStates = map[string]int{"used": fsUsed, "free": fsFree, "reserved": fsReserved}

type filesystemKey struct {
	time       pcommon.Timestamp
	mountpoint string
}

type filesystemDraft struct {
	device, fsType string
	start          pcommon.Timestamp
	values         [fsParts]int64
	filled         [fsParts]bool
}

type spoolDraft struct {
	start  pcommon.Timestamp
	values [2]int64 // bytes, batches
	filled [2]bool
}

// spaceRows collects one batch's filesystem and agent_spool points.
type spaceRows struct {
	filesystems map[filesystemKey]*filesystemDraft
	spool       map[pcommon.Timestamp]*spoolDraft
}

func newSpaceRows() spaceRows {
	return spaceRows{filesystems: map[filesystemKey]*filesystemDraft{}, spool: map[pcommon.Timestamp]*spoolDraft{}}
}

// add maps m if it is one of these metrics; ok is false for any other name.
func (rows spaceRows) add(m *otlp.Metric) (ok bool, err error) {
	switch m.Name {
	case filesystemLimitMetric.Name:
		return true, eachPoint(m, level, filesystemLimitMetric.Unit, func(dp *otlp.NumberPoint) error { return rows.addFilesystem(dp, fsSize) })
	case filesystemUsageMetric.Name:
		return true, eachPoint(m, level, filesystemUsageMetric.Unit, func(dp *otlp.NumberPoint) error {
			state, err := stringAttribute(dp, "system.filesystem.state")
			if err != nil {
				return err
			}
			part, known := fsStates[state]
			if !known {
				return fmt.Errorf("system.filesystem.state %q: expected used, free or reserved", state)
			}
			return rows.addFilesystem(dp, part)
		})
	case spoolSizeMetric.Name:
		return true, eachPoint(m, level, spoolSizeMetric.Unit, func(dp *otlp.NumberPoint) error { return rows.addSpool(dp, 0) })
	case spoolBatchesMetric.Name:
		return true, eachPoint(m, level, spoolBatchesMetric.Unit, func(dp *otlp.NumberPoint) error { return rows.addSpool(dp, 1) })
	}
	return false, nil
}

func (rows spaceRows) addFilesystem(dp *otlp.NumberPoint, part int) error {
	mountpoint, err := stringAttribute(dp, "system.filesystem.mountpoint")
	if err != nil {
		return err
	}
	device, err := stringAttribute(dp, deviceAttribute)
	if err != nil {
		return err
	}
	fsType, err := stringAttribute(dp, "system.filesystem.type")
	if err != nil {
		return err
	}
	value, err := countValue(dp)
	if err != nil {
		return err
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	key := filesystemKey{time: dp.Time, mountpoint: mountpoint}
	draft := rows.filesystems[key]
	if draft == nil {
		draft = &filesystemDraft{device: device, fsType: fsType}
		rows.filesystems[key] = draft
	}
	if draft.device != device || draft.fsType != fsType {
		return fmt.Errorf("mount point %s at %s: points disagree on its device or type (%s %s, %s %s)", mountpoint, dp.Time, draft.device, draft.fsType, device, fsType)
	}
	if draft.filled[part] {
		return fmt.Errorf("two points for the same state of %s at %s", mountpoint, dp.Time)
	}
	if draft.start, err = intervalStart(dp, draft.start); err != nil {
		return err
	}
	draft.values[part], draft.filled[part] = value, true
	return nil
}

func (rows spaceRows) addSpool(dp *otlp.NumberPoint, part int) error {
	value, err := countValue(dp)
	if err != nil {
		return err
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	draft := rows.spool[dp.Time]
	if draft == nil {
		draft = &spoolDraft{}
		rows.spool[dp.Time] = draft
	}
	if draft.filled[part] {
		return fmt.Errorf("two spool points of one kind at %s", dp.Time)
	}
	if draft.start, err = intervalStart(dp, draft.start); err != nil {
		return err
	}
	draft.values[part], draft.filled[part] = value, true
	return nil
}

// filesystemRows returns the complete rows in time and mount-point order. A row needs all four
// points, and they must add up: used + free + reserved = size.
func (rows spaceRows) filesystemRows() ([]telemetry.FilesystemRow, error) {
	var out []telemetry.FilesystemRow
	for key, d := range rows.filesystems {
		at := key.time.AsTime().UTC()
		for part, filled := range d.filled {
			if !filled {
				return nil, fmt.Errorf("filesystem %s at %s: system.filesystem.limit and the used, free and reserved states of system.filesystem.usage travel together; %s is missing",
					key.mountpoint, at, [fsParts]string{"the limit", "used", "free", "reserved"}[part])
			}
		}
		size, used, free, reserved := d.values[fsSize], d.values[fsUsed], d.values[fsFree], d.values[fsReserved]
		if size <= 0 || used+free+reserved != size {
			return nil, fmt.Errorf("filesystem %s at %s: used %d + free %d + reserved %d must equal the size %d, which is above 0", key.mountpoint, at, used, free, reserved, size)
		}
		out = append(out, telemetry.FilesystemRow{Time: at, Mountpoint: key.mountpoint, Device: d.device, FSType: d.fsType,
			IntervalSeconds: time.Duration(key.time - d.start).Seconds(), SizeBytes: size, FreeBytes: free + reserved, AvailableBytes: free})
	}
	slices.SortFunc(out, func(a, b telemetry.FilesystemRow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Mountpoint, b.Mountpoint))
	})
	return out, nil
}

// spoolRows returns the agent_spool rows in time order; size and batches travel together.
func (rows spaceRows) spoolRows() ([]telemetry.AgentSpoolRow, error) {
	var out []telemetry.AgentSpoolRow
	for ts, d := range rows.spool {
		if !d.filled[0] || !d.filled[1] {
			return nil, fmt.Errorf("agent_spool at %s: spindle.agent.spool.size and spindle.agent.spool.batches travel together", ts.AsTime().UTC())
		}
		out = append(out, telemetry.AgentSpoolRow{Time: ts.AsTime().UTC(), IntervalSeconds: time.Duration(ts - d.start).Seconds(),
			SpoolBytes: d.values[0], PendingBatches: d.values[1]})
	}
	slices.SortFunc(out, func(a, b telemetry.AgentSpoolRow) int { return a.Time.Compare(b.Time) })
	return out, nil
}
