package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// copySet gathers the rows of one transaction per table, so that every batch and every agent of
// a group shares one COPY per table: the database pays per statement (and, in plain mode, one
// rollup-queue trigger per statement), not per batch.
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

// copy writes every table with one COPY each, in the order the tables were first added.
func (c *copySet) copy(ctx context.Context, tx pgx.Tx) error {
	for _, t := range c.tables {
		if err := copyRows(ctx, tx, t.table, t.columns, t.rows); err != nil {
			return err
		}
	}
	return nil
}

func copyRows(ctx context.Context, tx pgx.Tx, table string, columns []string, rows [][]any) error {
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
