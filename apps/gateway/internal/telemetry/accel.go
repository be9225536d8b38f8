package telemetry

import (
	"fmt"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
)

// The generic families (docs/metrics.md, "Acceleration features"): a family whose declaration
// says gateway.rows "accel" (packages/domain/metrics/catalogue.json) holds one row per server
// and interval, and every catalogue metric stored in its table fills one column of it. Ingest
// (which metric fills which column, and how its value is read) and the store (the COPY column
// list) both derive from the catalogue, so such a family needs no gateway code: its variable,
// its slice in Intervals and AccelFamilies are generated (families_gen.go).

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

// CopyValues is r as a row of its family's CopyColumns.
func (r *AccelRow) CopyValues(org string, server any) []any {
	return append([]any{r.Time, org, server, r.IntervalSeconds}, r.Values...)
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
