package writeopt

import (
	"errors"
	"io"
	"time"
)

// errOpenForWriting: another descriptor has the file open for writing, so the space reserved
// past its end may still be used, and trimming it could race an append.
var errOpenForWriting = errors.New("open for writing elsewhere")

// growth is what the feature remembers of one preallocated file.
type growth struct {
	lastSize    int64
	reservedEnd int64 // the end of the space reserved for the file
	last        lastWindow
	lastEvent   time.Time // the file's last inotify event: it has been idle since
	// trimmed: the reservation past the end was returned at size lastSize; the file gets a new
	// window only when its size changes (the trim's own IN_MODIFY must not re-reserve).
	trimmed     bool
	nextTrim    time.Time // after a trim that could not be done, not retried before this
	unsupported bool
	// hintTried: the file's extent size hint was decided (XFS only, at its first window);
	// hinted: the agent set it; hintErr: why setting it failed (reported once, then cleared).
	hintTried, hinted bool
	hintErr           error
	// hold keeps the reservation alive where the file system gives it back when the file's last
	// handle closes (Windows: an attributes-only handle, which blocks no one); nil on Linux.
	hold io.Closer
}

// closeHold lets go of the file (on Windows the file system may then trim what is reserved).
func (g *growth) closeHold() {
	if g.hold != nil {
		_ = g.hold.Close()
		g.hold = nil
	}
}

// defragResult says what happened to one file.
type defragResult struct {
	ExtentsBefore, ExtentsAfter int
	Improved                    bool
}

// event is one file event (inotify, ReadDirectoryChangesW) with its full path.
type event struct {
	path    string
	isDir   bool
	created bool // the file was just created there, so it starts empty
}
