package writeopt

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openGate wins the race to a new file's first write. inotify reports a file after its first
// append has been written and fsynced, so that append is already placed wherever the file
// system put it, away from the window reserved next. The gate is a fanotify group with
// FAN_OPEN_PERM on every watched directory: the kernel holds each open(2) of a file in them
// until the agent answers, so a matching file that is still empty gets its first window before
// its opener can write a byte.
//
// Who pays: every open of any file in a watched directory waits for one round trip to the
// agent (docs/benchmarks.md has the p99). To keep that short the reader thread does nothing
// slow: it answers at once for the agent's own opens, files that are not empty, not regular,
// hard-linked or matched by no rule, and hands only the empty matching ones to a worker, which
// reserves and then answers. The answer is always "allow": the gate never refuses an open, and
// when the queue is full or anything fails the open goes ahead unreserved (inotify catches the
// file at its first write, as without the gate). If the agent stops, the kernel allows every
// open still waiting when the group's descriptor closes.
type openGate struct {
	fd   int
	stop [2]int // a pipe: closing the write end wakes the reader to exit
	self int32
	// wants says a path is matched by a rule (called on the reader thread: it must not block).
	wants func(path string) bool
	// reserve gives an empty matching file its first window (the worker calls it with the file
	// opened for writing; it may block on the feature's lock).
	reserve func(path string, file *os.File)
	queue   chan gateEvent
	exited  chan struct{}

	mu     sync.Mutex // reads and answers take turns; closed: the group is gone
	closed bool
}

// gateEvent is an open waiting for the agent's answer.
type gateEvent struct {
	fd   int32 // the kernel's descriptor of the file being opened (ours to close)
	path string
}

// gateQueue bounds the opens waiting for a reservation; past it they are let through at once.
const gateQueue = 256

// newOpenGate makes the fanotify group. It fails with ErrUnsupported (and the reason) where
// permission events are not available: no CAP_SYS_ADMIN, or a kernel without
// CONFIG_FANOTIFY_ACCESS_PERMISSIONS.
func newOpenGate(wants func(string) bool, reserve func(string, *os.File)) (*openGate, error) {
	// The event descriptor is read-only and non-blocking, so the kernel's own open of it can
	// neither fail on an append-only or busy executable (a failed open would turn into a
	// refusal of the application's open) nor hang on a FIFO.
	fd, err := unix.FanotifyInit(unix.FAN_CLASS_CONTENT|unix.FAN_CLOEXEC|unix.FAN_NONBLOCK,
		unix.O_RDONLY|unix.O_NONBLOCK|unix.O_LARGEFILE|unix.O_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("%w: fanotify permission events are not available (%v): it needs CAP_SYS_ADMIN "+
			"and a kernel built with CONFIG_FANOTIFY_ACCESS_PERMISSIONS", ErrUnsupported, err)
	}
	g := &openGate{fd: fd, self: int32(os.Getpid()), wants: wants, reserve: reserve,
		queue: make(chan gateEvent, gateQueue), exited: make(chan struct{})}
	if err := unix.Pipe2(g.stop[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("open gate: %w", err)
	}
	go g.read()
	go g.work()
	return g, nil
}

// mark gates the opens of the files directly in dir.
func (g *openGate) mark(dir string) error {
	err := unix.FanotifyMark(g.fd, unix.FAN_MARK_ADD, unix.FAN_OPEN_PERM|unix.FAN_EVENT_ON_CHILD, unix.AT_FDCWD, dir)
	if errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("%w: the kernel refuses open permission events on %s (%v)", ErrUnsupported, dir, err)
	}
	return err
}

// read is the reader thread: it answers every event it need not hold, and queues the rest.
func (g *openGate) read() {
	runtime.LockOSThread() // a thread of its own: nothing else the agent does delays an answer
	defer runtime.UnlockOSThread()
	defer close(g.exited)
	defer close(g.queue)
	buffer := make([]byte, 4096)
	fds := []unix.PollFd{{Fd: int32(g.fd), Events: unix.POLLIN}, {Fd: int32(g.stop[0]), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		g.mu.Lock()
		n, err := unix.Read(g.fd, buffer)
		g.mu.Unlock()
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		for offset := 0; offset+int(unix.FAN_EVENT_METADATA_LEN) <= n; {
			meta := (*unix.FanotifyEventMetadata)(unsafe.Pointer(&buffer[offset]))
			if meta.Event_len < unix.FAN_EVENT_METADATA_LEN || meta.Vers != unix.FANOTIFY_METADATA_VERSION {
				break
			}
			offset += int(meta.Event_len)
			if meta.Fd < 0 {
				continue // a queue overflow: no descriptor, nothing waits for an answer
			}
			g.sort(meta.Fd, meta.Pid, meta.Mask)
		}
	}
}

// sort answers an event at once or queues it for a reservation.
func (g *openGate) sort(fd, pid int32, mask uint64) {
	if mask&unix.FAN_OPEN_PERM == 0 || pid == g.self {
		g.allow(fd) // the agent's own opens (its reservations, counts, reads) are never held
		return
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(fd), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != 0 || st.Nlink != 1 {
		g.allow(fd) // not a new file: inotify follows its growth
		return
	}
	path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	if err != nil || !g.wants(path) {
		g.allow(fd)
		return
	}
	select {
	case g.queue <- gateEvent{fd: fd, path: path}:
	default:
		g.allow(fd) // the worker is behind: let this one through unreserved
	}
}

// work reserves the first window of each queued file, then lets its opener go on.
func (g *openGate) work() {
	for e := range g.queue {
		// The event's descriptor is read-only; fallocate needs one open for writing. Reopening
		// it through /proc is the same file whatever happened to its name meanwhile, and is
		// itself an open by the agent, which the reader lets through.
		file, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(e.fd)), os.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			g.reserve(e.path, file)
			file.Close()
		}
		g.allow(e.fd)
	}
}

// allow closes the event's descriptor and answers the open. In that order: the opener must not
// find the file still open by the agent when it goes on (a write lease, which the trim itself
// takes, is refused while any other descriptor is open). The kernel knows the event by the
// descriptor's number, which read() could hand out again between the close and the answer:
// reads and answers therefore take turns (g.mu).
func (g *openGate) allow(fd int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	_ = unix.Close(int(fd))
	if !g.closed {
		response := unix.FanotifyResponse{Fd: fd, Response: unix.FAN_ALLOW}
		_, _ = unix.Write(g.fd, (*[unsafe.Sizeof(response)]byte)(unsafe.Pointer(&response))[:])
	}
}

// close ends the gate without waiting for the worker (which may be waiting for the feature's
// lock, held by whoever closes the gate): closing the group lets every held open through, and
// the worker then only closes what is left in its queue.
func (g *openGate) close() {
	_ = unix.Close(g.stop[1])
	<-g.exited
	g.mu.Lock()
	g.closed = true
	_ = unix.Close(g.fd)
	g.mu.Unlock()
	_ = unix.Close(g.stop[0])
}

// ProbeFirstWrite says whether preallocation can come before a new file's first write here
// (fanotify open permission events on dir), or only after it (inotify).
func ProbeFirstWrite(dir string) error {
	g, err := newOpenGate(func(string) bool { return false }, func(string, *os.File) {})
	if err != nil {
		return err
	}
	defer g.close()
	return g.mark(dir)
}
