package memlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/mountinfo"
)

// v1Unlimited: cgroup v1 reports "no limit" as the largest page-aligned int64
// (9223372036854771712); anything this large is no limit on any real machine.
const v1Unlimited = int64(1) << 62

func readMemAvailable(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("memlimit: %w", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		rest, found := strings.CutPrefix(line, "MemAvailable:")
		if !found {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			break
		}
		kib, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("memlimit: %s: MemAvailable %q: %w", path, fields[0], err)
		}
		return kib * 1024, nil
	}
	return 0, fmt.Errorf("%w (%s)", ErrNoMemAvailable, path)
}

// readInt reads a file holding one integer, or "max" (returned as -1).
func readInt(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	text := string(bytes.TrimSpace(data))
	if text == "max" {
		return -1, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// readStat returns a memory.stat file as a map of counters.
func readStat(path string) (map[string]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	stat := map[string]int64{}
	for line := range strings.SplitSeq(string(data), "\n") {
		name, value, found := strings.Cut(line, " ")
		if !found {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err == nil {
			stat[name] = n
		}
	}
	return stat, nil
}

func readCgroupV2(dir string) (Cgroup, bool, error) {
	limit, err := readInt(filepath.Join(dir, "memory.max"))
	if errors.Is(err, fs.ErrNotExist) {
		return Cgroup{}, false, nil // the root cgroup, or the memory controller is not enabled here
	}
	if err != nil || limit < 0 {
		return Cgroup{}, false, err
	}
	usage, err := readInt(filepath.Join(dir, "memory.current"))
	if err != nil {
		return Cgroup{}, false, err
	}
	stat, err := readStat(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return Cgroup{}, false, err
	}
	return Cgroup{Version: V2, Dir: dir, LimitBytes: limit, UsageBytes: usage,
		FileBytes: stat["active_file"] + stat["inactive_file"]}, true, nil
}

// readCgroupV1 uses memory.stat's hierarchical_memory_limit (the smallest limit among the
// cgroup and its ancestors) and the total_* counters, which include child cgroups as
// memory.usage_in_bytes does.
func readCgroupV1(dir string) (Cgroup, bool, error) {
	limit, err := readInt(filepath.Join(dir, "memory.limit_in_bytes"))
	if err != nil {
		return Cgroup{}, false, err
	}
	stat, err := readStat(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return Cgroup{}, false, err
	}
	if hierarchical, ok := stat["hierarchical_memory_limit"]; ok && hierarchical < limit {
		limit = hierarchical
	}
	if limit >= v1Unlimited {
		return Cgroup{}, false, nil
	}
	usage, err := readInt(filepath.Join(dir, "memory.usage_in_bytes"))
	if err != nil {
		return Cgroup{}, false, err
	}
	return Cgroup{Version: V1, Dir: dir, LimitBytes: limit, UsageBytes: usage,
		FileBytes: stat["total_active_file"] + stat["total_inactive_file"]}, true, nil
}

// readPressureSomeAvg10 parses the "some avg10=" value of a PSI file.
func readPressureSomeAvg10(path string) (float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		rest, found := strings.CutPrefix(line, "some ")
		if !found {
			continue
		}
		for field := range strings.FieldsSeq(rest) {
			if value, ok := strings.CutPrefix(field, "avg10="); ok {
				return strconv.ParseFloat(value, 64)
			}
		}
	}
	return 0, fmt.Errorf("%s: no \"some avg10=\"", path)
}

// ownMemoryCgroup finds the memory cgroup of this process: a v1 hierarchy with the memory
// controller wins (that is where the limit is enforced on a hybrid system); otherwise the
// unified hierarchy if it is mounted.
func ownMemoryCgroup(procPath string) (Version, string, error) {
	membership, err := os.ReadFile(filepath.Join(procPath, "self", "cgroup"))
	if err != nil {
		return NoCgroup, "", fmt.Errorf("memlimit: %w", err)
	}
	mounts, err := readCgroupMounts(filepath.Join(procPath, "self", "mountinfo"))
	if err != nil {
		return NoCgroup, "", err
	}
	var unifiedPath string
	hasUnified := false
	for line := range strings.SplitSeq(string(membership), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			unifiedPath, hasUnified = parts[2], true
			continue
		}
		for controller := range strings.SplitSeq(parts[1], ",") {
			if controller != "memory" {
				continue
			}
			if m, ok := mounts.v1Memory(); ok {
				return V1, m.dirOf(parts[2]), nil
			}
		}
	}
	if m, ok := mounts.v2(); ok && hasUnified {
		return V2, m.dirOf(unifiedPath), nil
	}
	return NoCgroup, "", nil
}

type cgroupMount struct {
	root, mountPoint, fsType string
	superOptions             []string
}

// dirOf maps a path from /proc/self/cgroup to a directory: the path is relative to the
// hierarchy's root, the mount shows the subtree from m.root (not "/" inside containers).
func (m cgroupMount) dirOf(cgroupPath string) string {
	rel := strings.TrimPrefix(cgroupPath, m.root)
	return filepath.Join(m.mountPoint, rel)
}

type cgroupMounts []cgroupMount

func (ms cgroupMounts) v1Memory() (cgroupMount, bool) {
	for _, m := range ms {
		if m.fsType == "cgroup" && containsString(m.superOptions, "memory") {
			return m, true
		}
	}
	return cgroupMount{}, false
}

func (ms cgroupMounts) v2() (cgroupMount, bool) {
	for _, m := range ms {
		if m.fsType == "cgroup2" {
			return m, true
		}
	}
	return cgroupMount{}, false
}

func containsString(list []string, s string) bool {
	for _, item := range list {
		if item == s {
			return true
		}
	}
	return false
}

// readCgroupMounts parses the cgroup and cgroup2 lines of a mountinfo file:
// "id parent major:minor root mountpoint options [optional...] - fstype source superoptions".
func readCgroupMounts(path string) (cgroupMounts, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("memlimit: %w", err)
	}
	defer f.Close()
	var mounts cgroupMounts
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		before, after, found := strings.Cut(scanner.Text(), " - ")
		if !found {
			continue
		}
		fields, tail := strings.Fields(before), strings.Fields(after)
		if len(fields) < 5 || len(tail) < 3 || (tail[0] != "cgroup" && tail[0] != "cgroup2") {
			continue
		}
		mounts = append(mounts, cgroupMount{
			root: mountinfo.Unescape(fields[3]), mountPoint: mountinfo.Unescape(fields[4]),
			fsType: tail[0], superOptions: strings.Split(tail[2], ","),
		})
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("memlimit: read %s: %w", path, err)
	}
	return mounts, nil
}
