package config

import "errors"

// WriteOptimizationConfig is what only the server's operator decides about write optimisation;
// the policy from the console says which files, never how full the disk may get.
type WriteOptimizationConfig struct {
	// FreeSpaceFloorBytes: defragmentation leaves a file as it is when its temporary donor would
	// take the file system's available space below this. 0: the larger of 1 GiB and 5 % of the
	// file system.
	FreeSpaceFloorBytes int64 `yaml:"free_space_floor_bytes,omitempty"`
}

func (w WriteOptimizationConfig) validate() error {
	if w.FreeSpaceFloorBytes < 0 {
		return errors.New("write_optimization.free_space_floor_bytes cannot be negative")
	}
	return nil
}
