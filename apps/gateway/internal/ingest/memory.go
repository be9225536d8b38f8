package ingest

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

type memoryColumn int

const (
	totalBytes memoryColumn = iota
	availableBytes
	freeBytes
	cachedBytes
	buffersBytes
	dirtyBytes
	swapUsedBytes // stored as part of swap_total_bytes = used + free
	swapFreeBytes
	memoryColumnCount
)

// memoryMetric says which memory column(s) an OTLP gauge fills (docs/metrics.md, "Memory").
// Metrics split by a state attribute ignore states Spindle does not store (semantic conventions
// define more, such as "used" or "slab_reclaimable").
type memoryMetric struct {
	column   memoryColumn
	stateKey string // set for metrics split by a state attribute; then byState picks the column
	byState  map[string]memoryColumn
}

var memoryMetrics = map[string]memoryMetric{
	"system.memory.limit":           {column: totalBytes},
	"system.memory.linux.available": {column: availableBytes},
	"system.memory.usage": {stateKey: "system.memory.state",
		byState: map[string]memoryColumn{"free": freeBytes, "cached": cachedBytes, "buffers": buffersBytes}},
	"spindle.memory.dirty": {column: dirtyBytes},
	"system.paging.usage": {stateKey: "system.paging.state",
		byState: map[string]memoryColumn{"used": swapUsedBytes, "free": swapFreeBytes}},
}

// memoryDraft is one memory row in the making; a gauge nobody sent is stored as NULL.
type memoryDraft struct {
	values [memoryColumnCount]int64
	filled [memoryColumnCount]bool
}

type memoryRows map[pcommon.Timestamp]*memoryDraft

func (rows memoryRows) add(m *otlp.Metric, spec memoryMetric) error {
	return eachPoint(m, level, "By", func(dp *otlp.NumberPoint) error { return rows.addPoint(dp, spec) })
}

func (rows memoryRows) addPoint(dp *otlp.NumberPoint, spec memoryMetric) error {
	column := spec.column
	if spec.stateKey != "" {
		state, err := stringAttribute(dp, spec.stateKey)
		if err != nil {
			return err
		}
		known, ok := spec.byState[state]
		if !ok {
			return nil
		}
		column = known
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	value, err := countValue(dp)
	if err != nil {
		return err
	}
	draft := rows[dp.Time]
	if draft == nil {
		draft = &memoryDraft{}
		rows[dp.Time] = draft
	}
	if draft.filled[column] {
		return fmt.Errorf("two points for the same value at %s", dp.Time)
	}
	draft.values[column] = value
	draft.filled[column] = true
	return nil
}

// rows returns the finished rows ordered by time.
func (rows memoryRows) rows() ([]telemetry.MemoryRow, error) {
	out := make([]telemetry.MemoryRow, 0, len(rows))
	for at, draft := range rows {
		v := func(c memoryColumn) telemetry.Measured {
			return telemetry.Measured{V: draft.values[c], Valid: draft.filled[c]}
		}
		used, free := v(swapUsedBytes), v(swapFreeBytes)
		if used.V > math.MaxInt64-free.V {
			return nil, fmt.Errorf("swap used + free at %s is too large", at)
		}
		out = append(out, telemetry.MemoryRow{
			Time:           at.AsTime().UTC(),
			TotalBytes:     v(totalBytes),
			AvailableBytes: v(availableBytes),
			FreeBytes:      v(freeBytes),
			CachedBytes:    v(cachedBytes),
			BuffersBytes:   v(buffersBytes),
			DirtyBytes:     v(dirtyBytes),
			SwapTotalBytes: telemetry.Measured{V: used.V + free.V, Valid: used.Valid && free.Valid},
			SwapFreeBytes:  free,
		})
	}
	slices.SortFunc(out, func(a, b telemetry.MemoryRow) int { return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano()) })
	return out, nil
}
