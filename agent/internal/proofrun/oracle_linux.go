package proofrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// oracle is the ceiling an A/B run can compare against instead of the read cache: on Enable
// it maps every data file and locks it in memory (mmap + mlock) from this process, which runs
// outside the database's memory cgroup. Each pass starts by dropping the files from the page
// cache, so the lock faults every page in here and the pages are charged to this process's
// cgroup, not the database's: for the whole pass the database's cgroup limit, its own
// eviction and any scan beside it cannot evict a page of the data files. That is all a read
// cache working from outside the cgroup can do for the files it manages (it can only keep
// more of them resident, for less of the pass), so the oracle's gain bounds the cache's from
// above on the same machine and workload. It ignores the budget on purpose: it is the ceiling
// with every file fully resident, not a policy.
type oracle struct {
	mu       sync.Mutex
	mappings [][]byte
	locked   int64 // bytes locked now
	total    int64 // bytes locked over the run
	lastErr  string
}

// NewOracle returns the oracle Accelerator: every data file locked in memory while enabled.
func NewOracle() (Accelerator, error) { return &oracle{}, nil }

func (o *oracle) Enable(ctx context.Context, t Targets) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.releaseLocked(); err != nil {
		return err
	}
	for _, path := range t.DataFiles {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := o.lockFile(path); err != nil {
			o.lastErr = err.Error()
			return errors.Join(err, o.releaseLocked())
		}
	}
	return nil
}

// lockFile maps path read-only and shared, and locks the mapping: mlock faults every page in.
func (o *oracle) lockFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a relation dropped since the file list was taken: nothing to keep
	}
	if err != nil {
		return fmt.Errorf("oracle: open %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("oracle: stat %s: %w", path, err)
	}
	if info.Size() == 0 {
		return nil
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("oracle: map %s: %w", path, err)
	}
	if err := unix.Mlock(m); err != nil {
		_ = unix.Munmap(m)
		return fmt.Errorf("oracle: lock %s in memory (run as root, or raise RLIMIT_MEMLOCK): %w", path, err)
	}
	o.mappings = append(o.mappings, m)
	o.locked += info.Size()
	o.total += info.Size()
	return nil
}

// releaseLocked unlocks and unmaps every mapping; o.mu is held.
func (o *oracle) releaseLocked() error {
	var errs []error
	for _, m := range o.mappings {
		if err := unix.Munmap(m); err != nil {
			errs = append(errs, fmt.Errorf("oracle: unmap: %w", err))
		}
	}
	o.mappings, o.locked = nil, 0
	return errors.Join(errs...)
}

func (o *oracle) Disable(context.Context) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.releaseLocked()
}

// Stats reports the locked bytes in the read cache's fields: budget and resident are what is
// locked now, prefetched is every byte locked over the run.
func (o *oracle) Stats() AcceleratorStats {
	o.mu.Lock()
	defer o.mu.Unlock()
	return AcceleratorStats{ReadCacheBudgetBytes: o.locked, ReadCacheResidentBytes: o.locked,
		ReadCachePrefetchedBytes: o.total, LastError: o.lastErr}
}

func (o *oracle) Close() error { return o.Disable(context.Background()) }
