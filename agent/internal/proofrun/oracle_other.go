//go:build !linux

package proofrun

// NewOracle: the oracle locks files in memory with mmap and mlock, Linux only.
func NewOracle() (Accelerator, error) { return nil, platformSupported() }
