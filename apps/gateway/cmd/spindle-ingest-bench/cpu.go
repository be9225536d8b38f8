package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicksPerSecond is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicksPerSecond = 100

// cpuTicks is the user+system CPU of pid, or of pid and all its direct children when
// withChildren (PostgreSQL's postmaster and its backends: the live ones from their own
// /proc/<pid>/stat, the exited ones from the postmaster's, which holds what it reaped), read
// from /proc.
func cpuTicks(pid int, withChildren bool) (int64, error) {
	total, reaped, _, err := statTicks(pid)
	if err != nil {
		return 0, err
	}
	if !withChildren {
		return total, nil
	}
	total += reaped
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range entries {
		child, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		ticks, _, parent, err := statTicks(child)
		if err == nil && parent == pid {
			total += ticks
		}
	}
	return total, nil
}

// statTicks returns utime+stime, cutime+cstime (the children the process has waited for: a
// backend that exited during the run, such as the raw COPY's connections closed when its time
// is up, counts there once the postmaster has reaped it) and the parent pid.
func statTicks(pid int) (ticks, reaped int64, parent int, err error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// The command name is in parentheses and may contain spaces: split after the last ')'.
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	if len(fields) < 15 {
		return 0, 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	parent, _ = strconv.Atoi(fields[1])
	var times [4]int64
	for i := range times {
		times[i], _ = strconv.ParseInt(fields[11+i], 10, 64)
	}
	return times[0] + times[1], times[2] + times[3], parent, nil
}

// cpuMeter measures the share of one core a process (tree) used between start and stop.
type cpuMeter struct {
	pid          int
	withChildren bool
	startTicks   int64
}

func startCPU(pid int, withChildren bool) (*cpuMeter, error) {
	if pid == 0 {
		return nil, nil
	}
	ticks, err := cpuTicks(pid, withChildren)
	if err != nil {
		return nil, fmt.Errorf("read CPU of pid %d: %w", pid, err)
	}
	return &cpuMeter{pid: pid, withChildren: withChildren, startTicks: ticks}, nil
}

// percentOfCore returns the CPU used since start as a percentage of one core over seconds, or
// -1 when there is no meter (pid not given), reported as "not measured".
func (m *cpuMeter) percentOfCore(seconds float64) float64 {
	if m == nil {
		return -1
	}
	ticks, err := cpuTicks(m.pid, m.withChildren)
	if err != nil {
		return -1
	}
	return float64(ticks-m.startTicks) / clockTicksPerSecond / seconds * 100
}

// perBatchText is the CPU time per acknowledged batch of a share of one core, or "not measured".
func perBatchText(percent, batchesPerSecond float64) string {
	if percent < 0 || batchesPerSecond <= 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.3f ms", percent/100/batchesPerSecond*1000)
}
