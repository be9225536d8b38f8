//go:build !linux

package proofrun

import "log/slog"

// NewAccelerator: the acceleration features are Linux only.
func NewAccelerator(*slog.Logger) (Accelerator, error) { return nil, platformSupported() }
