package memlimit

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// Reader takes Snapshots. It is cheap (a few small file reads) and safe for concurrent use.
type Reader struct {
	procPath string
	version  Version
	// dirs are the cgroup directories whose limits apply, innermost first: on v2 the process's
	// cgroup and its ancestors up to the mount root (each may set memory.max); on v1 the
	// process's cgroup only, whose memory.stat carries the hierarchical limit.
	dirs []string
}

// Detect finds the memory cgroup of this process from <procPath>/self/cgroup and
// <procPath>/self/mountinfo. A process outside any memory controller gets a Reader of
// MemAvailable and /proc/pressure/memory only.
func Detect(procPath string) (*Reader, error) {
	version, dir, err := ownMemoryCgroup(procPath)
	if err != nil {
		return nil, err
	}
	r := &Reader{procPath: procPath, version: version}
	switch version {
	case V1:
		r.dirs = []string{dir}
	case V2:
		r.dirs = v2Ancestors(dir)
	}
	return r, nil
}

// ForCgroup reads the given cgroup directory (no ancestors): for an agent told where it runs,
// and for tests.
func ForCgroup(procPath string, version Version, dir string) *Reader {
	return &Reader{procPath: procPath, version: version, dirs: []string{dir}}
}

// Version is the cgroup version the Reader reads limits from.
func (r *Reader) Version() Version { return r.version }

// Dir is the process's own memory cgroup directory, "" when there is none.
func (r *Reader) Dir() string {
	if len(r.dirs) == 0 {
		return ""
	}
	return r.dirs[0]
}

// Read takes a Snapshot now.
func (r *Reader) Read() (Snapshot, error) {
	available, err := readMemAvailable(filepath.Join(r.procPath, "meminfo"))
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{MemAvailableBytes: available, PressureSomeAvg10: math.NaN()}
	var errs []error
	for _, dir := range r.dirs {
		c, limited, err := readCgroup(r.version, dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if limited && (s.Cgroup == nil || c.AvailableBytes() < s.Cgroup.AvailableBytes()) {
			s.Cgroup = &c
		}
	}
	if err := errors.Join(errs...); err != nil {
		return s, fmt.Errorf("memlimit: read cgroup: %w", err)
	}
	r.readPressure(&s)
	return s, nil
}

// readPressure prefers the cgroup's own memory.pressure (v2): it measures the stalls of the
// tasks the limit applies to. v1 has none, so the machine-wide file stands in.
func (r *Reader) readPressure(s *Snapshot) {
	candidates := make([]string, 0, 2)
	if r.version == V2 && len(r.dirs) > 0 {
		candidates = append(candidates, filepath.Join(r.dirs[0], "memory.pressure"))
	}
	candidates = append(candidates, filepath.Join(r.procPath, "pressure", "memory"))
	for _, path := range candidates {
		avg10, err := readPressureSomeAvg10(path)
		if err == nil {
			s.PressureSomeAvg10, s.PressureSource = avg10, path
			return
		}
	}
}

func readCgroup(version Version, dir string) (Cgroup, bool, error) {
	switch version {
	case V1:
		return readCgroupV1(dir)
	case V2:
		return readCgroupV2(dir)
	}
	return Cgroup{}, false, nil
}

// v2Ancestors lists dir and its parents that are still cgroups (have cgroup.controllers).
func v2Ancestors(dir string) []string {
	var dirs []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "cgroup.controllers")); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dirs = append(dirs, d)
		if parent := filepath.Dir(d); parent == d {
			break
		}
	}
	return dirs
}
