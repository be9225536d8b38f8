package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// copySet gathers the rows of one transaction per table, so that every batch and every agent of
// a group shares one statement per table: the database pays per statement, not per batch.
type copySet struct {
	tables []*tableRows
	byName map[string]*tableRows
}

type tableRows struct {
	table   string
	columns []string
	rows    [][]any
}

func newCopySet() *copySet { return &copySet{byName: map[string]*tableRows{}} }

// add appends one row to table. columns must be the same for every row of a table; they are
// constants of this package, never input.
func (c *copySet) add(table string, columns []string, row []any) {
	t := c.byName[table]
	if t == nil {
		t = &tableRows{table: table, columns: columns}
		c.byName[table] = t
		c.tables = append(c.tables, t)
	}
	t.rows = append(t.rows, row)
}

// copyAtRows is the size from which a table's rows go by COPY rather than in the pipeline: COPY
// costs the database 2.4 times less CPU per row than INSERT … SELECT unnest() at 500 rows of
// disk_latency, but two round trips of its own (docs/benchmarks.md, "Ingest end to end
// against raw COPY"). Small groups are bound by round trips, large ones by CPU.
const copyAtRows = 256

// copyLarge writes every table of at least copyAtRows rows with one binary COPY each
// (copybinary.go); types holds each table's column types.
func (c *copySet) copyLarge(ctx context.Context, conn *pgx.Conn, types map[string]map[string]string) error {
	for _, t := range c.tables {
		if len(t.rows) >= copyAtRows {
			if err := copyRowsEncoded(ctx, conn, t.table, t.columns, types[t.table], t.rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// queueInserts queues one INSERT per table below copyAtRows rows, its rows sent as one array per
// column and unnested by the server: unlike COPY, which needs its own round trips, these travel
// in the pipeline of the group's closing statements. types holds each table's column types.
func (c *copySet) queueInserts(batch *pgx.Batch, queued *[]string, types map[string]map[string]string) {
	for _, t := range c.tables {
		if len(t.rows) == 0 || len(t.rows) >= copyAtRows {
			continue
		}
		names := make([]string, len(t.columns))
		arrays := make([]string, len(t.columns))
		values := make([]any, len(t.columns))
		for j, column := range t.columns {
			names[j] = pgx.Identifier{column}.Sanitize()
			arrays[j] = fmt.Sprintf("$%d::%s[]", j+1, types[t.table][column])
			col := make([]any, len(t.rows))
			for i, row := range t.rows {
				col[i] = row[j]
			}
			values[j] = col
		}
		batch.Queue(`INSERT INTO `+pgx.Identifier{t.table}.Sanitize()+` (`+strings.Join(names, ", ")+`)
			SELECT * FROM unnest(`+strings.Join(arrays, ", ")+`)`, values...)
		*queued = append(*queued, fmt.Sprintf("insert %d rows into %s", len(t.rows), t.table))
	}
}

// queueRollupRanges queues, in one statement, every (table, server, time span) the set writes,
// for the plain-mode rollup queue (migration 20261125120000_group_rollup_queue; a no-op with
// TimescaleDB, whose continuous aggregates read the raw tables themselves). The transaction
// set spindle.rollups_queued, so the tables' per-statement triggers do not queue them again.
func (c *copySet) queueRollupRanges(batch *pgx.Batch, queued *[]string) {
	type key struct {
		table, org string
		server     any // as uuidValue made it
	}
	spans := map[key][2]time.Time{}
	var order []key
	for _, t := range c.tables {
		at, org, server := slices.Index(t.columns, "time"), slices.Index(t.columns, "org_id"), slices.Index(t.columns, "server_id")
		if at < 0 || org < 0 || server < 0 {
			continue // not an interval table: nothing to roll up
		}
		for _, row := range t.rows {
			when, _ := row[at].(time.Time)
			orgID, _ := row[org].(string)
			k := key{t.table, orgID, row[server]}
			span, seen := spans[k]
			if !seen {
				order = append(order, k)
				span = [2]time.Time{when, when}
			}
			if when.Before(span[0]) {
				span[0] = when
			}
			if when.After(span[1]) {
				span[1] = when
			}
			spans[k] = span
		}
	}
	if len(order) == 0 {
		return
	}
	sources, orgs, servers := make([]string, len(order)), make([]string, len(order)), make([]string, len(order))
	firsts, lasts := make([]time.Time, len(order)), make([]time.Time, len(order))
	for i, k := range order {
		sources[i], orgs[i], servers[i] = k.table, k.org, uuidText(k.server)
		firsts[i], lasts[i] = spans[k][0], spans[k][1]
	}
	batch.Queue(`SELECT queue_rollup_ranges($1::text[], $2::text[], $3::uuid[], $4::timestamptz[], $5::timestamptz[])`,
		sources, orgs, servers, firsts, lasts)
	*queued = append(*queued, fmt.Sprintf("queue %d rollup ranges (is migration 20261125120000_group_rollup_queue applied?)", len(order)))
}

// writtenTables names the tables with rows, which copyLarge and queueInserts write.
func (c *copySet) writtenTables() []string {
	var names []string
	for _, t := range c.tables {
		if len(t.rows) > 0 {
			names = append(names, t.table)
		}
	}
	return names
}

func copyRows(ctx context.Context, tx querier, table string, columns []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy %d rows into %s: %w", len(rows), table, err)
	}
	return nil
}

// TableCopy is the rows one COPY of the ingest path writes into Table.
type TableCopy struct {
	Table   string
	Columns []string
	Rows    [][]any
}

// IntervalCopies returns the COPYs the ingest path would make for batches of agent, table by
// table, without writing anything: the ingest benchmark copies exactly these rows to measure
// raw COPY on the same machine.
func IntervalCopies(agent Agent, batches []telemetry.Batch) []TableCopy {
	set := newCopySet()
	for _, b := range batches {
		addIntervalRows(set, agent, b)
	}
	copies := make([]TableCopy, 0, len(set.tables))
	for _, t := range set.tables {
		copies = append(copies, TableCopy{Table: t.table, Columns: t.columns, Rows: t.rows})
	}
	return copies
}
