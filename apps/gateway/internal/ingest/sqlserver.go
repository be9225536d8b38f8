package ingest

import (
	"cmp"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// SQL Server statistics from its performance counters (docs/metrics.md, "Databases"): one
// sqlserver_stats row per instance and interval. The page life expectancy comes every interval
// and makes the row; the batch-request delta is missing on the first interval after the agent or
// the instance started, and the hit ratio while the instance has read no page: those columns
// stay NULL (not measured).

var (
	sqlServerBatchesMetric  = catalogue.MustLookup("spindle.db.sqlserver.batch_requests")
	sqlServerHitRatioMetric = catalogue.MustLookup("spindle.db.sqlserver.buffer_cache_hit_ratio")
	sqlServerLifeMetric     = catalogue.MustLookup("spindle.db.sqlserver.page_life_expectancy")
)

const sqlServerInstanceAttribute = "spindle.db.sqlserver.instance"

type sqlServerKey struct {
	time     pcommon.Timestamp
	instance string
}

type sqlServerDraft struct {
	start        pcommon.Timestamp
	batches      telemetry.Measured
	hitRatio     *float64
	life         int64
	lifeMeasured bool
}

type sqlServerRows map[sqlServerKey]*sqlServerDraft

// add maps m if it is a SQL Server metric; ok is false for any other name.
func (rows sqlServerRows) add(m *otlp.Metric) (ok bool, err error) {
	switch m.Name {
	case sqlServerBatchesMetric.Name:
		return true, eachPoint(m, deltaCounter, sqlServerBatchesMetric.Unit, func(dp *otlp.NumberPoint) error {
			v, err := countValue(dp)
			if err != nil {
				return err
			}
			return rows.set(dp, "batch requests", func(d *sqlServerDraft) bool {
				already := d.batches.Valid
				d.batches = telemetry.Measure(v)
				return already
			})
		})
	case sqlServerHitRatioMetric.Name:
		return true, eachPoint(m, level, sqlServerHitRatioMetric.Unit, func(dp *otlp.NumberPoint) error {
			v, err := ratioValue(dp)
			if err != nil {
				return err
			}
			return rows.set(dp, "buffer cache hit ratio", func(d *sqlServerDraft) bool {
				already := d.hitRatio != nil
				d.hitRatio = &v
				return already
			})
		})
	case sqlServerLifeMetric.Name:
		return true, eachPoint(m, level, sqlServerLifeMetric.Unit, func(dp *otlp.NumberPoint) error {
			v, err := countValue(dp)
			if err != nil {
				return err
			}
			return rows.set(dp, "page life expectancy", func(d *sqlServerDraft) bool {
				already := d.lifeMeasured
				d.life, d.lifeMeasured = v, true
				return already
			})
		})
	}
	return false, nil
}

// set finds the point's row and lets fill store the value; fill reports whether the row
// already had one (two points for one instance, metric and time are refused).
func (rows sqlServerRows) set(dp *otlp.NumberPoint, what string, fill func(*sqlServerDraft) (already bool)) error {
	instance, err := stringAttribute(dp, sqlServerInstanceAttribute)
	if err != nil {
		return err
	}
	if len(instance) > 128 {
		return fmt.Errorf("SQL Server instance name %.40q… is longer than 128 characters", instance)
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	key := sqlServerKey{time: dp.Time, instance: instance}
	draft := rows[key]
	if draft == nil {
		draft = &sqlServerDraft{}
		rows[key] = draft
	}
	if draft.start, err = intervalStart(dp, draft.start); err != nil {
		return err
	}
	if fill(draft) {
		return fmt.Errorf("two %s points for instance %s at %s", what, instance, dp.Time)
	}
	return nil
}

// ratioValue reads a share between 0 and 1.
func ratioValue(dp *otlp.NumberPoint) (float64, error) {
	v, err := floatValue(dp)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || v < 0 || v > 1 {
		return 0, fmt.Errorf("value %v is not a ratio between 0 and 1", v)
	}
	return v, nil
}

// rows returns the instances' rows in time and instance order. A row needs its page life
// expectancy, which the agent sends every interval: points without it are a malformed batch.
func (rows sqlServerRows) rows() ([]telemetry.SQLServerRow, error) {
	out := make([]telemetry.SQLServerRow, 0, len(rows))
	for key, d := range rows {
		at := key.time.AsTime().UTC()
		if !d.lifeMeasured {
			return nil, fmt.Errorf("sqlserver_stats %s at %s: %s travels with every SQL Server sample and is missing", key.instance, at, sqlServerLifeMetric.Name)
		}
		out = append(out, telemetry.SQLServerRow{Time: at, Instance: key.instance, IntervalSeconds: time.Duration(key.time - d.start).Seconds(),
			BatchRequests: d.batches, BufferCacheHitRatio: hitRatio(d.hitRatio), PageLifeExpectancySeconds: d.life})
	}
	slices.SortFunc(out, func(a, b telemetry.SQLServerRow) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Instance, b.Instance))
	})
	return out, nil
}

// hitRatio stores a ratio the instance did not report (it has read no page yet) as NULL.
func hitRatio(ratio *float64) sql.Null[float64] {
	if ratio == nil {
		return sql.Null[float64]{}
	}
	return sql.Null[float64]{V: *ratio, Valid: true}
}
