package telemetry

import (
	"fmt"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
)

// The acceleration families (docs/metrics.md, "Acceleration features") are declared once, in
// the metric catalogue: every catalogue metric whose table is read_cache, read_cache_holdout or
// write_opt is one column of that table. Ingest (which metric fills which column, and how its value is read)
// and the store (the COPY column list) both derive from these families, so a metric added to
// the catalogue with one of these tables needs only its migration column.

// AccelKind says how one metric of an acceleration family travels and is stored.
type AccelKind int

const (
	// AccelDelta is a delta Sum of a non-negative integer over the interval (bigint column).
	AccelDelta AccelKind = iota + 1
	// AccelGauge is a non-negative integer Gauge at the end of the interval (bigint column).
	AccelGauge
	// AccelSeconds is a Gauge in seconds, positive and finite (double precision column).
	AccelSeconds
)

// AccelColumn is one metric column of an acceleration table.
type AccelColumn struct {
	Metric string
	Column string
	Kind   AccelKind
}

// AccelFamily is one acceleration table: one row per server and interval.
type AccelFamily struct {
	Table   string
	Columns []AccelColumn
}

// AccelRow is one interval of one family. Values[i] belongs to Columns[i]: nil when the agent
// did not send that metric (stored as NULL, never 0), otherwise *int64 or *float64.
type AccelRow struct {
	Time            time.Time // the end of the interval
	IntervalSeconds float64
	Values          []any
}

// ReadCacheFamily, ReadCacheHoldoutFamily and WriteOptFamily are the tables read_cache,
// read_cache_holdout (the read cache's control group) and write_opt.
var (
	ReadCacheFamily        = accelFamily("read_cache")
	ReadCacheHoldoutFamily = accelFamily("read_cache_holdout")
	WriteOptFamily         = accelFamily("write_opt")
)

// AccelFamilies lists them, in the order the store writes them.
var AccelFamilies = []*AccelFamily{&ReadCacheFamily, &ReadCacheHoldoutFamily, &WriteOptFamily}

// AccelRows returns the rows of family in d.
func (d Deep) AccelRows(family *AccelFamily) []AccelRow {
	switch family {
	case &ReadCacheFamily:
		return d.ReadCache
	case &ReadCacheHoldoutFamily:
		return d.ReadCacheHoldout
	case &WriteOptFamily:
		return d.WriteOpt
	}
	return nil
}

func accelFamily(table string) AccelFamily {
	family := AccelFamily{Table: table}
	for _, m := range catalogue.Metrics {
		if m.Table != table {
			continue
		}
		if len(m.Columns) != 1 || len(m.Attributes) != 0 {
			panic(fmt.Sprintf("catalogue metric %s: an acceleration metric fills one column of %s and has no attributes", m.Name, table))
		}
		var kind AccelKind
		switch {
		case m.Type == "sum" && m.ValueType == "int":
			kind = AccelDelta
		case m.Type == "gauge" && m.ValueType == "int":
			kind = AccelGauge
		case m.Type == "gauge" && m.ValueType == "double" && m.Unit == "s":
			kind = AccelSeconds
		default:
			panic(fmt.Sprintf("catalogue metric %s: %s %s in %s is not an acceleration column kind (int sum, int gauge, or double gauge in s)", m.Name, m.ValueType, m.Type, m.Unit))
		}
		family.Columns = append(family.Columns, AccelColumn{Metric: m.Name, Column: m.Columns[0], Kind: kind})
	}
	if len(family.Columns) == 0 {
		panic(fmt.Sprintf("the catalogue stores no metric in %s", table))
	}
	return family
}

// CopyColumns is the table's column list for COPY, in the order of AccelRow's fields.
func (f AccelFamily) CopyColumns() []string {
	columns := []string{"time", "org_id", "server_id", "interval_seconds"}
	for _, c := range f.Columns {
		columns = append(columns, c.Column)
	}
	return columns
}

// WriteOptFile is one managed file's extent count (spindle.write_opt.managed_file.extents).
type WriteOptFile struct {
	Path    string
	Extents int64
}

// WriteOptFiles is the newest managed-file extent list of a batch.
type WriteOptFiles struct {
	Time  time.Time // the end of the interval the list describes
	Files []WriteOptFile
}
