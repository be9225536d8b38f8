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

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times (100 on Linux).
const clockTicks = 100

// cpuTimes reads utime+stime and cutime+cstime (reaped children) of a process, in seconds;
// ok false when unreadable.
func cpuTimes(pid int) (own, children float64, ppid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, false
	}
	// The command name may hold spaces; the fields after it start past the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return 0, 0, 0, false
	}
	num := func(k int) float64 { v, _ := strconv.ParseFloat(f[k], 64); return v }
	ppid, _ = strconv.Atoi(f[1])
	// f[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
	return (num(11) + num(12)) / clockTicks, (num(13) + num(14)) / clockTicks, ppid, true
}

// cpuMeter reads the CPU seconds used so far by the gateway and by the database cluster (the
// postmaster's live children plus the reaped ones); -1 where not measured.
type cpuMeter struct {
	gatewayPID, postmasterPID int
}

func (m cpuMeter) read() (gateway, database float64) {
	gateway, database = -1, -1
	if own, _, _, ok := cpuTimes(m.gatewayPID); ok && m.gatewayPID > 0 {
		gateway = own
	}
	if m.postmasterPID <= 0 {
		return
	}
	own, reaped, _, ok := cpuTimes(m.postmasterPID)
	if !ok {
		return
	}
	database = own + reaped
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if own, _, ppid, ok := cpuTimes(pid); ok && ppid == m.postmasterPID {
			database += own
		}
	}
	return
}

// self is the CPU seconds this tool used so far (the simulated agents); -1 when unreadable.
func (cpuMeter) self() float64 {
	if own, _, _, ok := cpuTimes(os.Getpid()); ok {
		return own
	}
	return -1
}

// postmasterPID is the parent of this session's backend, when the database runs on this host.
func postmasterPID(ctx context.Context, admin *pgxpool.Pool) int {
	var backend int
	if admin.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend) != nil {
		return 0
	}
	if _, _, ppid, ok := cpuTimes(backend); ok {
		return ppid
	}
	return 0
}
