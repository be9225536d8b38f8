package ingest

import (
	"fmt"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// counterFamily is a table of delta counters with one row per (key attribute, interval):
// disk_split_io per device, page_cache per host, pg_database_stats per database, pressure per
// host (docs/metrics.md). Each metric fills one column; which one may depend on attributes.
type counterFamily struct {
	table    string
	keyAttr  string   // "" when the table has one row per interval
	intKey   bool     // keyAttr carries an integer (kept as its decimal text)
	columns  []string // stored columns, in row order
	required []bool   // a row missing a required column is rejected; others stay unset
}

// counterMetric says how one OTLP metric fills a family's columns.
type counterMetric struct {
	family *counterFamily
	metric catalogue.Metric
	micros bool // the value travels in seconds and is stored in whole microseconds
	// column picks the column of a point; nil means column 0.
	column func(dp *otlp.NumberPoint) (int, error)
}

type counterKey struct {
	family *counterFamily
	key    string
	time   pcommon.Timestamp
}

type counterDraft struct {
	start  pcommon.Timestamp
	values []int64
	filled []bool
}

type counterRows map[counterKey]*counterDraft

func (rows counterRows) add(m *otlp.Metric, spec counterMetric) error {
	return eachPoint(m, deltaCounter, spec.metric.Unit, func(dp *otlp.NumberPoint) error { return rows.addPoint(dp, spec) })
}

func (rows counterRows) addPoint(dp *otlp.NumberPoint, spec counterMetric) error {
	key := counterKey{family: spec.family, time: dp.Time}
	if spec.family.keyAttr != "" {
		value, err := keyAttribute(dp, spec.family)
		if err != nil {
			return err
		}
		key.key = value
	}
	column := 0
	if spec.column != nil {
		var err error
		if column, err = spec.column(dp); err != nil {
			return err
		}
	}
	if dp.Time == 0 {
		return fmt.Errorf("the point has no timestamp")
	}
	var value int64
	var err error
	if spec.micros {
		value, err = microsFromSecondsValue(dp)
	} else {
		value, err = countValue(dp)
	}
	if err != nil {
		return err
	}
	draft := rows[key]
	if draft == nil {
		n := len(spec.family.columns)
		draft = &counterDraft{values: make([]int64, n), filled: make([]bool, n)}
		rows[key] = draft
	}
	if draft.filled[column] {
		return fmt.Errorf("two points for %s.%s at %s", spec.family.table, spec.family.columns[column], dp.Time)
	}
	draft.values[column] = value
	draft.filled[column] = true
	start, err := intervalStart(dp, draft.start)
	if err != nil {
		return err
	}
	draft.start = start
	return nil
}

func keyAttribute(dp *otlp.NumberPoint, family *counterFamily) (string, error) {
	if !family.intKey {
		return stringAttribute(dp, family.keyAttr)
	}
	v, err := intAttribute(dp, family.keyAttr)
	return strconv.FormatInt(v, 10), err
}

// intervalStart checks a delta point's interval against the row's (0: none yet).
func intervalStart(dp *otlp.NumberPoint, rowStart pcommon.Timestamp) (pcommon.Timestamp, error) {
	start := dp.Start
	if start == 0 {
		return 0, fmt.Errorf("the delta point has no start time, so its interval is unknown")
	}
	if start >= dp.Time {
		return 0, fmt.Errorf("the interval is empty or negative (start %s, end %s)", start, dp.Time)
	}
	if rowStart != 0 && rowStart != start {
		return 0, fmt.Errorf("points of one sample disagree on the interval start (%s and %s); all points of one sample must share start and end time", rowStart, start)
	}
	return start, nil
}

// each calls fn with every finished row of one family, after checking its required columns.
func (rows counterRows) each(family *counterFamily, fn func(key counterKey, d *counterDraft)) error {
	for key, draft := range rows {
		if key.family != family {
			continue
		}
		for i, required := range family.required {
			if required && !draft.filled[i] {
				return fmt.Errorf("%s at %s has no %s: send every metric of the family in each batch (docs/metrics.md)", family.table, key.time, family.columns[i])
			}
		}
		fn(key, draft)
	}
	return nil
}
