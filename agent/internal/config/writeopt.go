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

// WriteOptimizationConfig is what only the server's operator decides about write optimisation,
// regardless of policy: the policy from the console says which files, never how full the disk may
// get or whether opens may be held.
type WriteOptimizationConfig struct {
	// FirstWrite is auto (hold opens in the preallocated directories with fanotify permission
	// events where the kernel allows it, so a new file's first window is reserved before its
	// first write) or inotify (learn of new files after their first write, holding no open).
	FirstWrite string `yaml:"first_write"`
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
	if w.FreeSpaceFloorBytes < 0 {
		errs = append(errs, errors.New("write_optimization.free_space_floor_bytes cannot be negative"))
	}
	return errors.Join(errs...)
}
