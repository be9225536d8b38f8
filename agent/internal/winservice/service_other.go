//go:build !windows

package winservice

import (
	"context"
	"log/slog"
	"time"
)

// RunService is Windows-only.
func RunService(func(ctx context.Context, logger *slog.Logger) error, *slog.Logger) error {
	return ErrUnsupported
}

// Register is Windows-only.
func Register(Registration) (Registered, error) { return Registered{}, ErrUnsupported }

// Start is Windows-only.
func Start(time.Duration) error { return ErrUnsupported }

// Remove is Windows-only.
func Remove(time.Duration) (bool, error) { return false, ErrUnsupported }

// Stop is Windows-only.
func Stop(time.Duration) error { return ErrUnsupported }

// Running is unsupported outside Windows.
func Running() (bool, error) { return false, ErrUnsupported }
