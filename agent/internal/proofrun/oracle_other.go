//go:build !linux

package proofrun

// NewOracle: the oracle raises a memory cgroup's limit, Linux only.
func NewOracle(string) (Accelerator, error) { return nil, platformSupported() }
