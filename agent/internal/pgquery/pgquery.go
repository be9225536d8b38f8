// Package pgquery runs the agent's few PostgreSQL statements over pgconn's simple protocol and
// hands back text results. The agent only reads statistics and settings as text and runs DDL;
// pgx's type system (pgtype) would add about a megabyte of code to every agent binary, most of
// it paged in by its init work, for conversions the agent does not need.
package pgquery

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Rows is one statement's result: rows of text columns, nil for SQL NULL.
type Rows [][][]byte

// Query runs sql (one or several statements separated by semicolons: one round trip, and in the
// simple protocol one implicit transaction) and returns each statement's rows.
func Query(ctx context.Context, conn *pgconn.PgConn, sql string) ([]Rows, error) {
	results, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	out := make([]Rows, len(results))
	for i, r := range results {
		if r.Err != nil {
			return nil, r.Err
		}
		out[i] = r.Rows
	}
	return out, nil
}

// Value runs a statement that returns one row of one column (SHOW, a SELECT of one value).
func Value(ctx context.Context, conn *pgconn.PgConn, sql string) (string, error) {
	results, err := Query(ctx, conn, sql)
	if err != nil {
		return "", err
	}
	if len(results) != 1 || len(results[0]) != 1 || len(results[0][0]) != 1 || results[0][0][0] == nil {
		return "", fmt.Errorf("%s: expected one value", firstWords(sql))
	}
	return string(results[0][0][0]), nil
}

// Exec runs statements that return no rows (DDL).
func Exec(ctx context.Context, conn *pgconn.PgConn, sql string) error {
	_, err := Query(ctx, conn, sql)
	return err
}

// Literal quotes s as an escape string constant (E'…'), which reads the same whatever
// standard_conforming_strings says. PostgreSQL text cannot hold NUL.
func Literal(s string) (string, error) {
	if strings.ContainsRune(s, 0) {
		return "", errors.New("a PostgreSQL string cannot contain a NUL character")
	}
	return "E'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'", nil
}

// Identifier quotes s as a delimited identifier.
func Identifier(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, "\x00", ""), `"`, `""`) + `"`
}

func firstWords(sql string) string {
	if f := strings.Fields(sql); len(f) > 1 {
		return f[0] + " " + f[1]
	}
	return sql
}
