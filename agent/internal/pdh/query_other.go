//go:build !windows

package pdh

// Open: performance counters exist on Windows only.
func Open([]Spec) (Query, error) { return nil, ErrUnsupported }
