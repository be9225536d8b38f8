package readcache

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// pinning is a file mapped and locked into memory: its pages cannot be evicted until released.
type pinning struct {
	data      []byte
	sizeBytes int64
}

// pinFile maps the whole file read-only and mlocks it, which reads every page in.
func pinFile(path string) (*pinning, error) { return pinManagedRuns(path, nil) }

// pinManagedRuns maps the whole file read-only and mlocks the byte ranges runs (nil: all of
// it), which reads their pages in. With runs given (a control group is held out), the runs are
// read ahead (WILLNEED reads exactly them) and the mapping is MADV_RANDOM, so the locks' faults
// read nothing around their pages: the control pages stay as the workload left them.
func pinManagedRuns(path string, runs [][2]int64) (*pinning, error) {
	f, st, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return nil, err
	}
	defer f.Close() // the mapping keeps the file
	if st.Size == 0 {
		return &pinning{}, nil
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	locked := st.Size
	if runs == nil {
		err = unix.Mlock(data)
	} else {
		locked = 0
		err = unix.Madvise(data, unix.MADV_RANDOM)
		// Without fault-around, reading ahead of the locks batches the I/O of each run.
		for _, run := range runs {
			_ = unix.Fadvise(int(f.Fd()), run[0], run[1], unix.FADV_WILLNEED)
		}
		for _, run := range runs {
			if err != nil {
				break
			}
			end := min(run[0]+run[1], st.Size)
			if run[0] >= end {
				continue
			}
			err = unix.Mlock(data[run[0]:end])
			locked += end - run[0]
		}
	}
	if err != nil {
		_ = unix.Munlock(data)
		_ = unix.Munmap(data)
		if errors.Is(err, unix.ENOMEM) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.EAGAIN) {
			return nil, fmt.Errorf("mlock %s (%d bytes): %w: the locked-memory limit (RLIMIT_MEMLOCK) is too low; "+
				"set LimitMEMLOCK=infinity in the agent's systemd unit or pin less", path, locked, err)
		}
		return nil, fmt.Errorf("mlock %s: %w", path, err)
	}
	return &pinning{data: data, sizeBytes: locked}, nil
}

// release unlocks and unmaps; the pages stay cached until the kernel or a DONTNEED drops them.
// (Munlock of the whole mapping also covers ranges that were never locked.)
func (p *pinning) release() {
	if p == nil || p.data == nil {
		return
	}
	_ = unix.Munlock(p.data)
	_ = unix.Munmap(p.data)
	p.data = nil
}

// capIPCLock is CAP_IPC_LOCK's bit in /proc/self/status CapEff: with it mlock ignores the limit.
const capIPCLock = 14

// checkLockLimit raises the soft RLIMIT_MEMLOCK to the hard one and fails when pinning
// needBytes cannot work, with the fix in the message.
func checkLockLimit(procPath string, needBytes int64) error {
	if needBytes == 0 || hasCapability(procPath, capIPCLock) {
		return nil
	}
	var limit unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &limit); err != nil {
		return fmt.Errorf("read RLIMIT_MEMLOCK: %w", err)
	}
	if limit.Cur < limit.Max {
		raised := unix.Rlimit{Cur: limit.Max, Max: limit.Max}
		if err := unix.Setrlimit(unix.RLIMIT_MEMLOCK, &raised); err == nil {
			limit = raised
		}
	}
	if limit.Cur != unix.RLIM_INFINITY && limit.Cur < uint64(needBytes) {
		return fmt.Errorf("the pinned files need %d bytes locked but RLIMIT_MEMLOCK allows %d: "+
			"set LimitMEMLOCK=infinity in the agent's systemd unit (or run it with CAP_IPC_LOCK), or pin less",
			needBytes, limit.Cur)
	}
	return nil
}

func hasCapability(procPath string, capability uint) bool {
	f, err := os.Open(filepath.Join(procPath, "self", "status"))
	if err != nil {
		return false
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		if value, ok := strings.CutPrefix(scanner.Text(), "CapEff:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(value), 16, 64)
			return err == nil && mask&(1<<capability) != 0
		}
	}
	return false
}
