package proofrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// oracle is the ceiling an A/B run can compare against instead of the read cache. The workload
// runs in a memory cgroup (cgroupDir); on Enable the oracle raises the cgroup's limit by the
// data's size (the memory the read cache's budget would add) and reads every data file once
// from this process, outside the cgroup. For the whole pass every page of the data files is
// resident and none is evicted: the pages read here are charged outside the cgroup, so its
// limit cannot reclaim them, and whatever the workload or a scan beside it brings in fits in
// the raised limit. A read cache working from outside the cgroup can at best keep the same
// pages resident for the same pass, and pays for bringing them in during the pass, so the
// oracle's gain bounds the cache's from above on the same machine and workload.
//
// (Locking the files with mlock is no oracle: pages a scan in the cgroup reads between the
// pass's drop and the lock stay charged to the cgroup, locked, and the cgroup runs out of
// memory it can reclaim: measured, PostgreSQL's backends were killed.)
type oracle struct {
	limitFile string // memory.max (v2) or memory.limit_in_bytes (v1)
	mu        sync.Mutex
	saved     string // the limit before Enable, "" when not raised
	readBytes int64  // bytes read in over the run
	lastErr   string
}

// NewOracle returns the oracle Accelerator for the memory cgroup at cgroupDir.
func NewOracle(cgroupDir string) (Accelerator, error) {
	for _, name := range []string{"memory.max", "memory.limit_in_bytes"} {
		path := filepath.Join(cgroupDir, name)
		if _, err := os.Stat(path); err == nil {
			return &oracle{limitFile: path}, nil
		}
	}
	return nil, fmt.Errorf("oracle: %s has neither memory.max (cgroup v2) nor memory.limit_in_bytes (v1): "+
		"give the memory cgroup directory the workload runs in", cgroupDir)
}

func (o *oracle) Enable(ctx context.Context, t Targets) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.restoreLocked(); err != nil {
		return err
	}
	current, err := os.ReadFile(o.limitFile)
	if err != nil {
		return fmt.Errorf("oracle: read %s: %w", o.limitFile, err)
	}
	limit := strings.TrimSpace(string(current))
	if n, err := strconv.ParseInt(limit, 10, 64); err == nil && n < 1<<60 { // "max" or v1's unlimited: leave it
		if err := os.WriteFile(o.limitFile, []byte(strconv.FormatInt(n+t.BudgetBytes, 10)), 0o644); err != nil {
			return fmt.Errorf("oracle: raise %s: %w", o.limitFile, err)
		}
		o.saved = limit
	}
	buf := make([]byte, 1<<20)
	for _, path := range t.DataFiles {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := readAll(path, buf)
		o.readBytes += n
		if err != nil {
			o.lastErr = err.Error()
			return errors.Join(err, o.restoreLocked())
		}
	}
	return nil
}

// readAll reads path to its end (a file removed since it was listed has nothing to keep).
func readAll(path string, buf []byte) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("oracle: open %s: %w", path, err)
	}
	defer f.Close()
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
	if err != nil {
		return n, fmt.Errorf("oracle: read %s: %w", path, err)
	}
	return n, nil
}

// restoreLocked puts the saved limit back; o.mu is held. Lowering a limit makes the kernel
// reclaim the cgroup down to it, which can take a few tries while pages are written back.
func (o *oracle) restoreLocked() error {
	if o.saved == "" {
		return nil
	}
	var err error
	for range 10 {
		if err = os.WriteFile(o.limitFile, []byte(o.saved), 0o644); err == nil {
			o.saved = ""
			return nil
		}
	}
	return fmt.Errorf("oracle: restore %s to %s: %w", o.limitFile, o.saved, err)
}

func (o *oracle) Disable(context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.restoreLocked()
}

// Stats reports the oracle in the read cache's fields: prefetched is every byte it read in.
func (o *oracle) Stats() AcceleratorStats {
	o.mu.Lock()
	defer o.mu.Unlock()
	return AcceleratorStats{ReadCachePrefetchedBytes: o.readBytes, LastError: o.lastErr}
}

func (o *oracle) Close() error { return o.Disable(context.Background()) }
