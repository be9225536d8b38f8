//go:build !linux

package memlatency

import (
	"context"
	"fmt"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel"
)

// Calibrate cannot tell on this system whether the timed pages are resident (no mincore), so it
// measures nothing rather than a figure that may include storage reads.
func Calibrate(context.Context, string, int, time.Duration) (Measurement, error) {
	return Measurement{}, fmt.Errorf("memory-read latency calibration: %w", accel.ErrUnsupported)
}
