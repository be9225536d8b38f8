package memlatency

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel"
)

const (
	// Reads is how many 4 KiB reads one calibration times: a few milliseconds of work.
	Reads = 4096
	// Budget bounds one calibration (writing its file, then the timed reads, a few
	// milliseconds of them); past it the calibration is discarded.
	Budget = 5 * time.Second
)

// Calibrator measures at start and every Period in Run's goroutine, and hands the latest
// measurement to whoever asks (the accel collector, every tick).
type Calibrator struct {
	Dir    string        // where the calibration file is created (the agent's state directory)
	Period time.Duration // start to start of successive calibrations
	Logger *slog.Logger

	mu     sync.Mutex
	latest Measurement
	ok     bool
	// lastErr is the last failure's text, so a failure repeating every period is logged once.
	lastErr string
}

// Latest returns the latest successful measurement; false until one succeeded.
func (c *Calibrator) Latest() (Measurement, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latest, c.ok
}

// Run calibrates at once and then every Period until ctx is cancelled. A failed calibration
// keeps the previous measurement (the host did not change; it was only busy). On a system where
// it cannot measure, Run logs that once and returns nil: the metric is then never sent.
func (c *Calibrator) Run(ctx context.Context) error {
	ticker := time.NewTicker(c.Period)
	defer ticker.Stop()
	for {
		if err := c.calibrate(ctx); errors.Is(err, accel.ErrUnsupported) {
			c.Logger.Info("memory-read latency is not measured on this system", "reason", err)
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

func (c *Calibrator) calibrate(ctx context.Context) error {
	m, err := Calibrate(ctx, c.Dir, Reads, Budget)
	if ctx.Err() != nil {
		return nil // stopping
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if err.Error() != c.lastErr {
			c.Logger.Warn("memory-read latency calibration failed; the previous measurement stays", "error", err)
		}
		c.lastErr = err.Error()
		return err
	}
	if c.lastErr != "" || !c.ok {
		c.Logger.Info("memory-read latency measured", "mean", m.Mean, "reads", m.Samples)
	}
	c.latest, c.ok, c.lastErr = m, true, ""
	return nil
}
