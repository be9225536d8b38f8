package writeopt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// maximumWaitObjects is the most handles WaitForMultipleObjects takes.
const maximumWaitObjects = 64

// watchedChanges: a file created, renamed in, grown or written (Windows reports a growth as a
// size change; the write time catches writes inside the reservation too).
const watchedChanges = windows.FILE_NOTIFY_CHANGE_FILE_NAME | windows.FILE_NOTIFY_CHANGE_DIR_NAME |
	windows.FILE_NOTIFY_CHANGE_SIZE | windows.FILE_NOTIFY_CHANGE_LAST_WRITE

// watcher is one overlapped ReadDirectoryChangesW per rule root, each watching its whole
// subtree (Windows needs no watch per directory, so directories created later are covered).
type watcher struct {
	roots []*rootWatch
	rules []policy.PreallocationRule
}

type rootWatch struct {
	path       string
	dir        windows.Handle
	overlapped windows.Overlapped // its event is signalled when changes are in buffer
	buffer     []uint32           // DWORD-aligned, as FILE_NOTIFY_INFORMATION wants
}

// newWatcher watches the directory at the literal prefix of each rule (the file's directory
// when the prefix names a file). A prefix that does not exist yet is skipped.
func newWatcher(rules []policy.PreallocationRule, maxDirs int) (*watcher, error) {
	w := &watcher{rules: rules}
	seen := map[string]bool{}
	for _, rule := range rules {
		root := filepath.FromSlash(accel.LiteralPrefix(rule.Pattern))
		info, err := os.Stat(root)
		if err != nil {
			continue
		}
		if !info.IsDir() {
			root = filepath.Dir(root)
		}
		if seen[root] {
			continue
		}
		if len(w.roots) >= maxDirs {
			w.close()
			return nil, fmt.Errorf("preallocation would watch more than %d directories: narrow the patterns", maxDirs)
		}
		seen[root] = true
		rw, err := watchRoot(root)
		if err != nil {
			w.close()
			return nil, err
		}
		w.roots = append(w.roots, rw)
	}
	return w, nil
}

func watchRoot(root string) (*rootWatch, error) {
	name, err := windows.UTF16PtrFromString(root)
	if err != nil {
		return nil, err
	}
	dir, err := windows.CreateFile(name, windows.FILE_LIST_DIRECTORY,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING,
		windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OVERLAPPED, 0)
	if err != nil {
		return nil, fmt.Errorf("preallocation cannot watch %s: %w", root, err)
	}
	event, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		windows.CloseHandle(dir)
		return nil, fmt.Errorf("preallocation cannot watch %s: CreateEvent: %w", root, err)
	}
	rw := &rootWatch{path: root, dir: dir, buffer: make([]uint32, 16*1024)}
	rw.overlapped.HEvent = event
	if err := rw.issue(); err != nil {
		rw.close()
		return nil, fmt.Errorf("preallocation cannot watch %s: ReadDirectoryChangesW: %w", root, err)
	}
	return rw, nil
}

func (rw *rootWatch) issue() error {
	_ = windows.ResetEvent(rw.overlapped.HEvent)
	err := windows.ReadDirectoryChanges(rw.dir, (*byte)(unsafe.Pointer(&rw.buffer[0])), uint32(len(rw.buffer)*4),
		true, watchedChanges, nil, &rw.overlapped, 0)
	if errors.Is(err, windows.ERROR_IO_PENDING) {
		return nil
	}
	return err
}

// close cancels the pending request and waits for it to end before the buffer can go.
func (rw *rootWatch) close() {
	if rw.dir != 0 {
		_ = windows.CancelIoEx(rw.dir, &rw.overlapped)
		var n uint32
		_ = windows.GetOverlappedResult(rw.dir, &rw.overlapped, &n, true)
		windows.CloseHandle(rw.dir)
		rw.dir = 0
	}
	if rw.overlapped.HEvent != 0 {
		windows.CloseHandle(rw.overlapped.HEvent)
		rw.overlapped.HEvent = 0
	}
}

func (w *watcher) close() {
	for _, rw := range w.roots {
		rw.close()
	}
	w.roots = nil
}

// watching says directories are watched (the comparison group is measured).
func (w *watcher) watching() bool { return len(w.roots) > 0 }

// addTree does nothing: every root is watched with its subtree.
func (w *watcher) addTree(string, int) error { return nil }

// wait returns when one root has changes or after timeout.
func (w *watcher) wait(timeout time.Duration) error {
	events := make([]windows.Handle, 0, len(w.roots))
	for _, rw := range w.roots {
		events = append(events, rw.overlapped.HEvent)
	}
	if len(events) == 0 {
		time.Sleep(timeout)
		return nil
	}
	// WaitForMultipleObjects takes at most 64 handles; more roots are read on the timeout.
	events = events[:min(len(events), maximumWaitObjects)]
	if _, err := windows.WaitForMultipleObjects(events, false, uint32(timeout.Milliseconds())); err != nil {
		return fmt.Errorf("wait for file changes: %w", err)
	}
	return nil
}

// read collects the changes of every root whose request completed and asks for the next ones.
func (w *watcher) read([]byte) ([]event, error) {
	var events []event
	var errs []error
	for _, rw := range w.roots {
		var n uint32
		err := windows.GetOverlappedResult(rw.dir, &rw.overlapped, &n, false)
		if errors.Is(err, windows.ERROR_IO_INCOMPLETE) {
			continue
		}
		if err != nil && !errors.Is(err, windows.ERROR_NOTIFY_ENUM_DIR) {
			errs = append(errs, fmt.Errorf("%s: %w", rw.path, err))
		} else {
			// n == 0 (or ERROR_NOTIFY_ENUM_DIR): more changed than the buffer held; those files
			// are seen again at their next change.
			events = append(events, parseNotifications(rw.path, unsafe.Slice((*byte)(unsafe.Pointer(&rw.buffer[0])), n))...)
		}
		if err := rw.issue(); err != nil {
			errs = append(errs, fmt.Errorf("%s: ReadDirectoryChangesW: %w", rw.path, err))
		}
	}
	return events, errors.Join(errs...)
}

// parseNotifications reads FILE_NOTIFY_INFORMATION records (notify_windows.go has the layout).
func parseNotifications(root string, records []byte) []event {
	var events []event
	for _, n := range decodeNotifications(records) {
		if n.action == fileActionRemoved || n.action == fileActionRenamedOldName {
			continue
		}
		path := filepath.Join(root, n.name)
		info, err := os.Lstat(path)
		if err != nil {
			continue // gone again
		}
		events = append(events, event{path: path, isDir: info.IsDir(), created: n.action == fileActionAdded})
	}
	return events
}
