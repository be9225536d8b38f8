package writeopt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/policy"
	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

const watchMask = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_MOVED_TO | unix.IN_ONLYDIR

// waitMask is what a watch on an ancestor of a rule's missing directory asks for: only the
// directories appearing in it, not every write to the files beside them.
const waitMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_MASK_ADD

// watcher is one inotify instance watching the directories of one set of rules, and where the
// kernel allows it the open gate on the same directories (opengate_linux.go).
type watcher struct {
	fd    int
	dirs  map[int32]string // watch descriptor → directory
	rules []policy.PreallocationRule
	gate  *openGate // nil: inotify alone (gateErr says why)
	// A rule's directory that does not exist yet (a service installed after the agent, a log
	// directory made at its first start) is waited for on its nearest existing ancestor, and
	// followed down as each directory on the way appears.
	missing []string         // rule directories not there yet
	waiting map[int32]string // watch descriptor → an ancestor of a missing directory
	maxDirs int
}

// newWatcher watches every directory at and beneath the literal prefix of each rule (directories
// created later are added as they appear), and waits for a prefix that does not exist yet.
func newWatcher(rules []policy.PreallocationRule, maxDirs int) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("preallocation needs inotify: %w", err)
	}
	w := &watcher{fd: fd, dirs: map[int32]string{}, rules: rules, waiting: map[int32]string{}, maxDirs: maxDirs}
	for _, rule := range rules {
		root := filepath.FromSlash(accel.LiteralPrefix(rule.Pattern))
		if info, err := os.Stat(root); err == nil && !info.IsDir() {
			root = filepath.Dir(root) // the pattern names one file: watch its directory
		}
		w.missing = append(w.missing, root)
	}
	if err := w.reachMissing(); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// reachMissing watches the tree of each missing rule directory that now exists, and waits on the
// deepest existing ancestor of each that does not.
func (w *watcher) reachMissing() error {
	var still []string
	for _, root := range w.missing {
		ancestor := root
		for {
			if info, err := os.Stat(ancestor); err == nil && info.IsDir() {
				break
			}
			parent := filepath.Dir(ancestor)
			if parent == ancestor {
				break
			}
			ancestor = parent
		}
		if ancestor == root {
			if err := w.addTree(root, w.maxDirs); err != nil {
				return err
			}
			continue
		}
		still = append(still, root)
		wd, err := unix.InotifyAddWatch(w.fd, ancestor, waitMask)
		if errors.Is(err, unix.ENOSPC) {
			return fmt.Errorf("inotify watch limit reached at %s: raise fs.inotify.max_user_watches or narrow the patterns", ancestor)
		}
		if err == nil {
			w.waiting[int32(wd)] = ancestor
		}
	}
	w.missing = still
	if len(still) == 0 {
		// Every rule directory is there: the ancestors need no watching of their own any more.
		for wd := range w.waiting {
			if _, watched := w.dirs[wd]; !watched {
				_, _ = unix.InotifyRmWatch(w.fd, uint32(wd))
			}
			delete(w.waiting, wd)
		}
	}
	return nil
}

func (w *watcher) addTree(root string, maxDirs int) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if len(w.dirs) >= maxDirs {
			return fmt.Errorf("preallocation would watch more than %d directories under %s: narrow the patterns", maxDirs, root)
		}
		wd, err := unix.InotifyAddWatch(w.fd, path, watchMask)
		if errors.Is(err, unix.ENOSPC) {
			return fmt.Errorf("inotify watch limit reached at %s: raise fs.inotify.max_user_watches or narrow the patterns", path)
		}
		if err != nil {
			return nil // vanished or unreadable: nothing to preallocate there
		}
		w.dirs[int32(wd)] = path
		if w.gate != nil {
			_ = w.gate.mark(path) // a directory the gate cannot hold still has inotify
		}
		return nil
	})
}

func (w *watcher) close() {
	if w.gate != nil {
		w.gate.close()
	}
	_ = unix.Close(w.fd)
}

// watching says directories are watched (the comparison group is measured).
func (w *watcher) watching() bool { return len(w.dirs) > 0 }

// wait returns when events are pending or after timeout.
func (w *watcher) wait(timeout time.Duration) error {
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}}
	if _, err := unix.Poll(fds, int(timeout.Milliseconds())); err != nil && !errors.Is(err, unix.EINTR) {
		return fmt.Errorf("poll inotify: %w", err)
	}
	return nil
}

// read drains the pending events (the fd is non-blocking). A directory appearing on the way to
// a missing rule directory is followed at once, so that files made in it next are seen.
func (w *watcher) read(buffer []byte) ([]event, error) {
	var events []event
	var problem error
	for {
		n, err := unix.Read(w.fd, buffer)
		if errors.Is(err, unix.EAGAIN) {
			return events, problem
		}
		if err != nil {
			return events, err
		}
		for offset := 0; offset+unix.SizeofInotifyEvent <= n; {
			raw := (*unix.InotifyEvent)(unsafe.Pointer(&buffer[offset]))
			nameBytes := buffer[offset+unix.SizeofInotifyEvent : offset+unix.SizeofInotifyEvent+int(raw.Len)]
			offset += unix.SizeofInotifyEvent + int(raw.Len)
			if raw.Len == 0 {
				continue
			}
			name := string(nameBytes[:clen(nameBytes)])
			if _, ok := w.waiting[raw.Wd]; ok && raw.Mask&unix.IN_ISDIR != 0 {
				if err := w.reachMissing(); err != nil {
					problem = err
				}
			}
			dir, ok := w.dirs[raw.Wd]
			if !ok {
				continue
			}
			events = append(events, event{path: filepath.Join(dir, name), isDir: raw.Mask&unix.IN_ISDIR != 0,
				created: raw.Mask&unix.IN_CREATE != 0})
		}
	}
}

func clen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

// preallocate reserves the next window past the end of the file when its size comes within half
// a window of what is reserved (limits size the window). It returns the blocks newly reserved,
// in bytes.
func preallocate(path string, g *growth, limits windowLimits, now time.Time) (reservedBytes int64, err error) {
	// fallocate needs a writable descriptor; nothing is written. The path comes from inotify in
	// a directory others may write: never a symlink, FIFO, device node or hard-linked file.
	f, _, err := safeopen.Open(path, safeopen.Write, safeopen.Options{})
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return reserveIn(f, path, g, limits, now)
}

// reserveIn is preallocate on a file already open for writing.
func reserveIn(f *os.File, path string, g *growth, limits windowLimits, now time.Time) (reservedBytes int64, err error) {
	fd := int(f.Fd())
	var before unix.Stat_t
	if err := unix.Fstat(fd, &before); err != nil {
		return 0, err
	}
	if before.Mode&unix.S_IFMT != unix.S_IFREG {
		return 0, nil
	}
	switch {
	case before.Size < g.lastSize:
		// Truncated (a log rotated by copytruncate): the file system freed everything past the
		// new end, so the file starts over from its first window.
		g.reservedEnd, g.last = 0, lastWindow{}
	case g.trimmed && before.Size == g.lastSize:
		return 0, nil
	}
	g.trimmed, g.lastSize = false, before.Size
	if !limits.due(g.last, before.Size, g.reservedEnd) {
		return 0, nil
	}
	var fsStats unix.Statfs_t
	if err := unix.Fstatfs(fd, &fsStats); err != nil {
		return 0, fmt.Errorf("preallocate %s: free space: %w", path, err)
	}
	if !g.hintTried && limits.hintBytes > 0 && isXFS(&fsStats) {
		// The first window of a file on XFS: give it an extent size hint first (extsize_linux.go).
		// Whatever happens, the window is still reserved below.
		g.hintTried = true
		outcome, err := setExtentSizeHint(fd, limits.hintBytes, fsStats.Bsize)
		g.hinted = err == nil && outcome == hintSet
		if err != nil {
			g.hintErr = fmt.Errorf("%s: %w", path, err)
		}
	}
	start := max(before.Size, g.reservedEnd)
	window := limits.nextWindow(g.last, before.Size, start, now, int64(fsStats.Bavail)*int64(fsStats.Bsize))
	if window == 0 {
		return 0, nil // the disk is nearly full or the file has its cap reserved already
	}
	if err := unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, start, window); err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) {
			g.unsupported = true
			return 0, fmt.Errorf("preallocate %s: %w: the file system has no fallocate", path, ErrUnsupported)
		}
		return 0, fmt.Errorf("preallocate %s: %w", path, err)
	}
	g.reservedEnd = start + window
	g.last = lastWindow{bytes: window, startSize: before.Size, at: now}
	var after unix.Stat_t
	if err := unix.Fstat(fd, &after); err != nil {
		return 0, err
	}
	return max(0, (after.Blocks-before.Blocks)*512), nil
}

// Probe says whether preallocation and defragmentation work on the file system holding dir (the
// agent's state directory), for the capability report: a scratch file there gets 1 MiB reserved
// past its end with fallocate(FALLOC_FL_KEEP_SIZE), and the file system must be ext4.
func Probe(dir string) (preallocation, defragmentation error) {
	scratch, err := os.CreateTemp(dir, ".spindle-prealloc-probe-*")
	if err != nil {
		preallocation = fmt.Errorf("create a scratch file in %s: %w", dir, err)
	} else {
		if err := unix.Fallocate(int(scratch.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, 1<<20); err != nil {
			preallocation = fmt.Errorf("%w: the file system of %s refuses fallocate(FALLOC_FL_KEEP_SIZE) (%v)", ErrUnsupported, dir, err)
		}
		scratch.Close()
		_ = os.Remove(scratch.Name())
	}
	return preallocation, checkDefragSupported(dir)
}
