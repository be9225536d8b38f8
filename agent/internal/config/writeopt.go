package config

import "fmt"

// First-write modes of write_optimization.first_write.
const (
	FirstWriteAuto    = "auto"
	FirstWriteInotify = "inotify"
)

// WriteOptimizationConfig tunes how write optimisation works on this host regardless of policy
// (the policy says which files it preallocates).
type WriteOptimizationConfig struct {
	// FirstWrite is auto (hold opens in the preallocated directories with fanotify permission
	// events where the kernel allows it, so a new file's first window is reserved before its
	// first write) or inotify (learn of new files after their first write, holding no open).
	FirstWrite string `yaml:"first_write"`
}

func (w WriteOptimizationConfig) validate() error {
	switch w.FirstWrite {
	case FirstWriteAuto, FirstWriteInotify:
		return nil
	default:
		return fmt.Errorf("write_optimization.first_write %q is not one of %s, %s", w.FirstWrite, FirstWriteAuto, FirstWriteInotify)
	}
}
