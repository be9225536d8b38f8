package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// resetStatements clears pg_stat_statements so the report covers the measured load only; it
// reports false when the extension is not installed (the report is then skipped).
func resetStatements(ctx context.Context, db *pgxpool.Pool) bool {
	_, err := db.Exec(ctx, `SELECT pg_stat_statements_reset()`)
	return err == nil
}

// printStatements prints where PostgreSQL spent the measured load: the statements with the most
// execution time, with calls and mean, and trigger functions from pg_stat_user_functions. Time
// between a client's round trips (network, scheduling) is in neither, which is the point of
// comparing their sum with the load's wall clock.
func printStatements(ctx context.Context, db *pgxpool.Pool, seconds float64, top int) {
	rows, err := db.Query(ctx, `
		SELECT calls, total_exec_time, rows, regexp_replace(query, '\s+', ' ', 'g')
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		ORDER BY total_exec_time DESC LIMIT $1`, top)
	if err != nil {
		fmt.Printf("\npg_stat_statements: not available (%v)\n", err)
		return
	}
	defer rows.Close()
	fmt.Printf("\nPostgreSQL statements during the measured load (pg_stat_statements, by execution time):\n")
	fmt.Printf("  %8s %9s %8s %9s  %s\n", "calls/s", "ms/s", "mean ms", "rows/call", "statement")
	for rows.Next() {
		var calls, nrows int64
		var total float64
		var query string
		if err := rows.Scan(&calls, &total, &nrows, &query); err != nil {
			return
		}
		fmt.Printf("  %8.1f %9.1f %8.3f %9.1f  %s\n", float64(calls)/seconds, total/seconds, total/float64(max(calls, 1)),
			float64(nrows)/float64(max(calls, 1)), shorten(query, 90))
	}
	functions, err := db.Query(ctx, `SELECT funcname, calls, total_time FROM pg_stat_user_functions ORDER BY total_time DESC LIMIT 5`)
	if err != nil {
		return
	}
	defer functions.Close()
	for functions.Next() {
		var name string
		var calls int64
		var total float64
		if err := functions.Scan(&name, &calls, &total); err == nil && calls > 0 {
			fmt.Printf("  function %s: %.1f calls/s, %.1f ms/s\n", name, float64(calls)/seconds, total/seconds)
		}
	}
}

func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
