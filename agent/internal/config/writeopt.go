package config

import (
	"errors"
	"fmt"
)

// First-write modes of write_optimization.first_write.
const (
	FirstWriteAuto    = "auto"
	FirstWriteInotify = "inotify"
)

// Modes of write_optimization.extent_size_hint.
const (
	ExtentSizeHintOff         = "off"
	ExtentSizeHintFirstWindow = "first_window"
)

// WriteOptimizationConfig is what only the server's operator decides about write optimisation,
// regardless of policy: the policy from the console says which files, never how full the disk may
// get or whether opens may be held.
type WriteOptimizationConfig struct {
	// FirstWrite is auto (hold opens in the preallocated directories with fanotify permission
	// events where the kernel allows it, so a new file's first window is reserved before its
	// first write) or inotify (learn of new files after their first write, holding no open).
	FirstWrite string `yaml:"first_write"`
	// ExtentSizeHint is off (the default) or first_window: on XFS, give each new file a rule
	// matches an extent size hint of its first window while the open gate holds it. Off by
	// default because on appended logs it was measured to change nothing while the agent keeps
	// up, and to double a late agent's fragments (docs/benchmarks.md).
	ExtentSizeHint string `yaml:"extent_size_hint"`
	// FreeSpaceFloorBytes: defragmentation leaves a file as it is when its temporary donor would
	// take the file system's available space below this. 0: the larger of 1 GiB and 5 % of the
	// file system.
	FreeSpaceFloorBytes int64 `yaml:"free_space_floor_bytes,omitempty"`
}

func (w WriteOptimizationConfig) validate() error {
	var errs []error
	switch w.FirstWrite {
	case FirstWriteAuto, FirstWriteInotify:
	default:
		errs = append(errs, fmt.Errorf("write_optimization.first_write %q is not one of %s, %s", w.FirstWrite, FirstWriteAuto, FirstWriteInotify))
	}
	switch w.ExtentSizeHint {
	case ExtentSizeHintOff, ExtentSizeHintFirstWindow:
	default:
		errs = append(errs, fmt.Errorf("write_optimization.extent_size_hint %q is not one of %s, %s", w.ExtentSizeHint,
			ExtentSizeHintOff, ExtentSizeHintFirstWindow))
	}
	if w.FreeSpaceFloorBytes < 0 {
		errs = append(errs, errors.New("write_optimization.free_space_floor_bytes cannot be negative"))
	}
	return errors.Join(errs...)
}
