// Package safeopen opens files the root agent was told about by a policy, in directories local
// users may be able to write. A user must not be able to steer it to another file (a symlink
// anywhere in the path), block it (a FIFO), or make it touch a device node or, for writes, a
// file they hard-linked in from elsewhere. Every accel feature opens files through Open.
package safeopen

import "errors"

// Access says how the file is opened.
type Access int

const (
	// Read opens read-only (residency, pins, prefetch, extent counts).
	Read Access = iota
	// Write opens write-only (preallocation: fallocate needs a writable descriptor).
	Write
	// ReadWrite opens for both (defragmentation's move-extent ioctl).
	ReadWrite
)

// Refusal reasons; each wraps into the error Open returns, so callers can skip quietly.
var (
	ErrSymlink     = errors.New("a symbolic link in the path (the agent never follows them)")
	ErrNotRegular  = errors.New("not a regular file (FIFOs, sockets and device nodes are never opened)")
	ErrHardLinked  = errors.New("the file has other hard links, so it may be someone else's file linked in; not modified")
	ErrOtherDevice = errors.New("the file is on another file system than the directory it was found under")
)
