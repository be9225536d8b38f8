package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// Reading /proc the way the hostmetrics receiver's scrapers do on Linux (through gopsutil):
// the disk scraper from /proc/diskstats (sectors of 512 bytes, times in ms), the memory scraper
// from /proc/meminfo (kB), the paging scraper from /proc/swaps and /proc/vmstat, the start
// time of every cumulative series from the boot time in /proc/stat.

const sectorBytes = 512

func bootTime(proc string) (time.Time, error) {
	lines, err := readLines(filepath.Join(proc, "stat"))
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range lines {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("stat btime %q: %w", v, err)
			}
			return time.Unix(secs, 0), nil
		}
	}
	return time.Time{}, fmt.Errorf("%s/stat has no btime line", proc)
}

// disks reads /proc/diskstats, leaving out loop and ram devices as the source configuration's
// disk exclude does.
func disks(proc string) ([]otlpfixture.HostDisk, error) {
	lines, err := readLines(filepath.Join(proc, "diskstats"))
	if err != nil {
		return nil, err
	}
	var out []otlpfixture.HostDisk
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 14 || strings.HasPrefix(f[2], "loop") || strings.HasPrefix(f[2], "ram") {
			continue
		}
		n := make([]int64, 11)
		for i := range n {
			if n[i], err = strconv.ParseInt(f[3+i], 10, 64); err != nil {
				return nil, fmt.Errorf("diskstats %s field %d: %w", f[2], 4+i, err)
			}
		}
		out = append(out, otlpfixture.HostDisk{Device: f[2],
			ReadOps: n[0], ReadMerged: n[1], ReadBytes: n[2] * sectorBytes, ReadSeconds: float64(n[3]) / 1000,
			WriteOps: n[4], WriteMerged: n[5], WriteBytes: n[6] * sectorBytes, WriteSeconds: float64(n[7]) / 1000,
			PendingOperations: n[8], IOSeconds: float64(n[9]) / 1000, WeightedIOSeconds: float64(n[10]) / 1000})
	}
	return out, nil
}

func memory(proc string) (*otlpfixture.HostMemory, error) {
	kv, err := keyValues(filepath.Join(proc, "meminfo"))
	if err != nil {
		return nil, err
	}
	kb := func(k string) int64 { return kv[k] * 1024 }
	m := &otlpfixture.HostMemory{Limit: kb("MemTotal"), Free: kb("MemFree"), Buffered: kb("Buffers"), Cached: kb("Cached"),
		SlabReclaimable: kb("SReclaimable"), SlabUnreclaimable: kb("SUnreclaim"), Available: kb("MemAvailable")}
	m.Used = m.Limit - m.Free - m.Buffered - m.Cached - m.SlabReclaimable
	return m, nil
}

func swaps(proc string) ([]otlpfixture.HostSwap, error) {
	lines, err := readLines(filepath.Join(proc, "swaps"))
	if err != nil {
		return nil, err
	}
	var out []otlpfixture.HostSwap
	for _, line := range lines[min(1, len(lines)):] { // the first line is the header
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		used, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("swaps line %q", line)
		}
		out = append(out, otlpfixture.HostSwap{Device: f[0], Used: used * 1024, Free: (size - used) * 1024})
	}
	return out, nil
}

func vmstat(proc string) (map[string]int64, error) { return keyValues(filepath.Join(proc, "vmstat")) }

// keyValues reads "Key: value [kB]" and "key value" lines.
func keyValues(path string) (map[string]int64, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range lines {
		f := strings.Fields(strings.Replace(line, ":", " ", 1))
		if len(f) < 2 {
			continue
		}
		if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			out[f[0]] = v
		}
	}
	return out, nil
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		lines = append(lines, scanner.Text())
	}
	return lines, scanner.Err()
}
