// Package fiemap counts a file's extents with the FS_IOC_FIEMAP ioctl, exactly as
// e2fsprogs' filefrag counts them, so the numbers the agent reports can be checked with
// `filefrag` on the same file.
package fiemap

import (
	"errors"
	"os"
)

// ErrUnsupported means the file's file system (or the OS) cannot map extents: tmpfs, procfs,
// some network file systems, every OS but Linux.
var ErrUnsupported = errors.New("FIEMAP not supported")

// Extent is one mapping FIEMAP returns, in bytes.
type Extent struct {
	Logical, Physical, Length uint64
}

// Counter counts extents the way filefrag does, fed in logical order, possibly over several
// ioctl calls. An extent continues the previous one (and is not a new fragment) when it starts
// where the previous one ended on disk, or when its distance on disk from the previous one
// equals its distance in the file (a hole skipped in both). An extent at logical offset 0
// never counts as a continuation of nothing: it is the file's first fragment.
type Counter struct {
	extents int
	last    Extent
	each    func(Extent) // sees every extent added (MappedFD)
}

// Add takes the next extent of the file.
func (c *Counter) Add(e Extent) {
	if c.each != nil {
		c.each(e)
	}
	expectedDense := c.last.Physical + c.last.Length
	expectedSparse := c.last.Physical + e.Logical - c.last.Logical
	if e.Logical != 0 && e.Physical != expectedSparse && e.Physical != expectedDense {
		c.extents++
	} else if c.extents == 0 {
		c.extents = 1
	}
	c.last = e
}

// Extents is the count so far: 0 for a file without any mapped extent (empty or all hole).
func (c *Counter) Extents() int { return c.extents }

// CountFile returns the extents of an open regular file; see CountFD.
func CountFile(f *os.File) (int, error) { return CountFD(int(f.Fd()), f.Name()) }
