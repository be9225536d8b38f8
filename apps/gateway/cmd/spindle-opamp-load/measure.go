package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// idleResult is the database's work while the fleet only heartbeats, from pg_stat_database
// (every session of the database, the gateway's and this tool's ingest alike).
type idleResult struct {
	window               time.Duration
	commitsPerSecond     float64
	rowsUpdatedPerSecond float64
	statementsPerSecond  float64 // -1: pg_stat_statements is not installed
}

func measureIdle(ctx context.Context, admin *pgxpool.Pool, window time.Duration) (idleResult, error) {
	read := func() (commits, updated int64, statements float64, err error) {
		// pg_stat_database is a snapshot per transaction: read it in a transaction of its own.
		if _, err = admin.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			return
		}
		err = admin.QueryRow(ctx, `SELECT xact_commit, tup_updated FROM pg_stat_database WHERE datname = current_database()`).
			Scan(&commits, &updated)
		if err != nil {
			return
		}
		statements = -1
		_ = admin.QueryRow(ctx, `SELECT sum(calls)::float8 FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&statements)
		return
	}
	c0, u0, s0, err := read()
	if err != nil {
		return idleResult{}, fmt.Errorf("read pg_stat_database: %w", err)
	}
	logf("measuring the database for %s while the fleet heartbeats", window)
	settle(ctx, window)
	c1, u1, s1, err := read()
	if err != nil {
		return idleResult{}, fmt.Errorf("read pg_stat_database: %w", err)
	}
	secs := window.Seconds()
	r := idleResult{window: window, commitsPerSecond: float64(c1-c0-2) / secs, rowsUpdatedPerSecond: float64(u1-u0) / secs, statementsPerSecond: -1}
	if s0 >= 0 && s1 >= 0 {
		r.statementsPerSecond = (s1 - s0) / secs
	}
	return r, nil
}

// residentBytes is VmRSS of the process; 0 when pid is 0 or unreadable.
func residentBytes(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if rest, ok := strings.CutPrefix(scanner.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
