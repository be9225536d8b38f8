//go:build !windows

package wininstall

import "context"

// Install is Windows-only.
func Install(context.Context, Options) error { return ErrUnsupported }

// Uninstall is Windows-only.
func Uninstall(Options) error { return ErrUnsupported }
