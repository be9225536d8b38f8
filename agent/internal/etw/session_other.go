//go:build !windows

package etw

import "fmt"

// Session is the kernel disk I/O trace; it runs on Windows only.
type Session struct{}

// Start: ETW exists on Windows only.
func Start() (*Session, error) {
	return nil, fmt.Errorf("%w: ETW exists on Windows only", ErrUnsupported)
}

// Histograms is never reached: Start fails.
func (*Session) Histograms() *Histograms { return nil }

// Close does nothing.
func (*Session) Close() error { return nil }
