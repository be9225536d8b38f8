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

// The delta-counter families of the deep telemetry (docs/metrics.md). Column order is the
// order of the telemetry row fields.
var (
	splitFamily         = &counterFamily{table: "disk_split_io", keyAttr: "system.device", columns: []string{"split_ops"}, required: []bool{true}}
	pageCacheFamily     = &counterFamily{table: "page_cache", columns: []string{"accesses", "misses"}, required: []bool{true, true}}
	pageCacheFileFamily = &counterFamily{table: "page_cache_top_files", keyAttr: "file.path",
		columns: []string{"accesses", "misses"}, required: []bool{true, true}}
	pgFamily = &counterFamily{table: "pg_database_stats", keyAttr: "db.namespace",
		columns:  []string{"commits", "rollbacks", "blocks_hit", "blocks_read", "block_read_time_us"},
		required: []bool{true, true, true, true, false}}
	pressureFamily = &counterFamily{table: "pressure",
		columns:  []string{"memory_some_us", "memory_full_us", "io_some_us", "io_full_us"},
		required: []bool{false, false, false, false}}
)

var counterMetrics = func() map[string]counterMetric {
	fixed := func(family *counterFamily, name string, column int, micros bool) counterMetric {
		return counterMetric{family: family, metric: catalogue.MustLookup(name), micros: micros,
			column: func(*otlp.NumberPoint) (int, error) { return column, nil }}
	}
	return map[string]counterMetric{
		"spindle.disk.split_operations":              fixed(splitFamily, "spindle.disk.split_operations", 0, false),
		"spindle.page_cache.accesses":                fixed(pageCacheFamily, "spindle.page_cache.accesses", 0, false),
		"spindle.page_cache.misses":                  fixed(pageCacheFamily, "spindle.page_cache.misses", 1, false),
		"spindle.page_cache.file.accesses":           fixed(pageCacheFileFamily, "spindle.page_cache.file.accesses", 0, false),
		"spindle.page_cache.file.misses":             fixed(pageCacheFileFamily, "spindle.page_cache.file.misses", 1, false),
		"spindle.db.postgresql.commits":              fixed(pgFamily, "spindle.db.postgresql.commits", 0, false),
		"spindle.db.postgresql.rollbacks":            fixed(pgFamily, "spindle.db.postgresql.rollbacks", 1, false),
		"spindle.db.postgresql.blocks_hit":           fixed(pgFamily, "spindle.db.postgresql.blocks_hit", 2, false),
		"spindle.db.postgresql.blocks_read":          fixed(pgFamily, "spindle.db.postgresql.blocks_read", 3, false),
		"spindle.db.postgresql.block_read_time":      fixed(pgFamily, "spindle.db.postgresql.block_read_time", 4, true),
		"spindle.read_cache.bucket.managed.accessed": fixed(holdoutBucketFamily, "spindle.read_cache.bucket.managed.accessed", 0, false),
		"spindle.read_cache.bucket.managed.missed":   fixed(holdoutBucketFamily, "spindle.read_cache.bucket.managed.missed", 1, false),
		"spindle.read_cache.bucket.control.accessed": fixed(holdoutBucketFamily, "spindle.read_cache.bucket.control.accessed", 2, false),
		"spindle.read_cache.bucket.control.missed":   fixed(holdoutBucketFamily, "spindle.read_cache.bucket.control.missed", 3, false),
		"spindle.pressure.stall_time": {family: pressureFamily, metric: catalogue.MustLookup("spindle.pressure.stall_time"),
			micros: true, column: pressureColumn},
	}
}()

// pressureColumn picks memory/io × some/full from the point's attributes.
func pressureColumn(dp *otlp.NumberPoint) (int, error) {
	resource, err := stringAttribute(dp, "spindle.pressure.resource")
	if err != nil {
		return 0, err
	}
	scope, err := stringAttribute(dp, "spindle.pressure.scope")
	if err != nil {
		return 0, err
	}
	column := slices.Index(pressureFamily.columns, resource+"_"+scope+"_us")
	if column < 0 {
		return 0, fmt.Errorf("spindle.pressure.resource %q / spindle.pressure.scope %q: expected memory or io, and some or full", resource, scope)
	}
	return column, nil
}

// deepRows collects one batch's deep telemetry.
type deepRows struct {
	counters      counterRows
	latency       *latencyRows
	untimed       untimedRows
	fragmentation fragmentationRows
	accel         accelRows
	writeOptFiles writeOptFileRows
	space         spaceRows
	sqlServer     sqlServerRows
}

func newDeepRows() deepRows {
	return deepRows{counters: counterRows{}, latency: &latencyRows{}, untimed: untimedRows{}, fragmentation: fragmentationRows{},
		accel: accelRows{}, writeOptFiles: writeOptFileRows{}, space: newSpaceRows(), sqlServer: sqlServerRows{}}
}

// add maps m if it is a deep metric; ok is false for any other name.
func (d deepRows) add(m *otlp.Metric) (ok bool, err error) {
	name := m.Name
	if spec, found := counterMetrics[name]; found {
		return true, d.counters.add(m, spec)
	}
	if name == latencyMetric.Name {
		return true, d.latency.add(m)
	}
	if name == untimedMetric.Name {
		return true, d.untimed.add(m)
	}
	if spec, found := fragmentationMetrics[name]; found {
		return true, d.fragmentation.add(m, spec)
	}
	if spec, found := accelMetrics[name]; found {
		return true, d.accel.add(m, spec)
	}
	if name == writeOptFileMetric.Name {
		return true, d.writeOptFiles.add(m)
	}
	if ok, err := d.sqlServer.add(m); ok {
		return true, err
	}
	return d.space.add(m)
}

func (d deepRows) rows() (telemetry.Deep, error) {
	var out telemetry.Deep
	seconds := func(key counterKey, draft *counterDraft) float64 {
		return time.Duration(key.time - draft.start).Seconds()
	}
	at := func(ts pcommon.Timestamp) time.Time { return ts.AsTime().UTC() }
	err := d.counters.each(splitFamily, func(k counterKey, c *counterDraft) {
		out.DiskSplit = append(out.DiskSplit, telemetry.DiskSplitRow{Time: at(k.time), Device: k.key, IntervalSeconds: seconds(k, c), SplitOps: c.values[0]})
	})
	if err == nil {
		err = d.counters.each(pageCacheFamily, func(k counterKey, c *counterDraft) {
			out.PageCache = append(out.PageCache, telemetry.PageCacheRow{Time: at(k.time), IntervalSeconds: seconds(k, c), Accesses: c.values[0], Misses: c.values[1]})
		})
	}
	if err == nil {
		err = d.counters.each(pgFamily, func(k counterKey, c *counterDraft) {
			out.PgDatabase = append(out.PgDatabase, telemetry.PgDatabaseRow{Time: at(k.time), Database: k.key, IntervalSeconds: seconds(k, c),
				Commits: c.values[0], Rollbacks: c.values[1], BlocksHit: c.values[2], BlocksRead: c.values[3],
				BlockReadTimeMicros: telemetry.Measured{V: c.values[4], Valid: c.filled[4]}})
		})
	}
	if err == nil {
		err = d.counters.each(pressureFamily, func(k counterKey, c *counterDraft) {
			stall := func(i int) telemetry.Measured { return telemetry.Measured{V: c.values[i], Valid: c.filled[i]} }
			out.Pressure = append(out.Pressure, telemetry.PressureRow{Time: at(k.time), IntervalSeconds: seconds(k, c),
				MemorySomeMicros: stall(0), MemoryFullMicros: stall(1), IOSomeMicros: stall(2), IOFullMicros: stall(3)})
		})
	}
	if err == nil {
		out.PageCacheTopFiles, err = newestTopFiles(d.counters)
	}
	if err != nil {
		return telemetry.Deep{}, err
	}
	for _, row := range out.PageCache {
		if row.Misses > row.Accesses {
			return telemetry.Deep{}, fmt.Errorf("page_cache at %s: %d misses exceed %d accesses; misses are at most the accesses (docs/metrics.md)", row.Time, row.Misses, row.Accesses)
		}
	}
	slices.SortFunc(out.DiskSplit, func(a, b telemetry.DiskSplitRow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Device, b.Device))
	})
	slices.SortFunc(out.PageCache, func(a, b telemetry.PageCacheRow) int { return a.Time.Compare(b.Time) })
	slices.SortFunc(out.PgDatabase, func(a, b telemetry.PgDatabaseRow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Database, b.Database))
	})
	slices.SortFunc(out.Pressure, func(a, b telemetry.PressureRow) int { return a.Time.Compare(b.Time) })
	// Before the histograms are sorted: the untimed counts find theirs through the index.
	if out.DiskUntimed, err = d.untimed.rows(d.latency); err != nil {
		return telemetry.Deep{}, err
	}
	out.DiskLatency = d.latency.rows()
	if out.Fragmentation, err = d.fragmentation.rows(); err != nil {
		return telemetry.Deep{}, err
	}
	for _, family := range telemetry.AccelFamilies {
		rows, err := d.accel.rows(family)
		if err != nil {
			return telemetry.Deep{}, err
		}
		out.SetAccelRows(family, rows)
	}
	if out.ReadCacheHoldoutBuckets, err = holdoutBucketRows(d.counters); err != nil {
		return telemetry.Deep{}, err
	}
	if out.WriteOptFiles, err = d.writeOptFiles.newest(); err != nil {
		return telemetry.Deep{}, err
	}
	if out.Filesystems, err = d.space.filesystemRows(); err != nil {
		return telemetry.Deep{}, err
	}
	if out.AgentSpool, err = d.space.spoolRows(); err != nil {
		return telemetry.Deep{}, err
	}
	if out.SQLServer, err = d.sqlServer.rows(); err != nil {
		return telemetry.Deep{}, err
	}
	return out, nil
}
