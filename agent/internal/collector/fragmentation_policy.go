package collector

import (
	"context"
	"slices"
	"time"
)

// FragmentationPolicy is how the policy's telemetry.fragmentationScan reaches the running
// fragmentation scanner. Only the Linux scanner implements it.
type FragmentationPolicy interface {
	// SetPolicyScan scans paths besides agent.yaml's fragmentation.paths and the detected
	// database directories. With paths, period replaces agent.yaml's fragmentation.period (the
	// policy is the newer, fleet-wide word on the same setting); without, agent.yaml's applies
	// again. A newly named path is scanned at once, not a period later.
	SetPolicyScan(paths []string, period time.Duration)
}

var _ FragmentationPolicy = (*fragmentationCollector)(nil)

func (c *fragmentationCollector) SetPolicyScan(paths []string, period time.Duration) {
	c.mu.Lock()
	for _, p := range paths {
		if !slices.Contains(c.policyPaths, p) {
			c.rescanNow = true
		}
	}
	c.policyPaths = slices.Clone(paths)
	c.policyPeriod = 0
	if len(paths) > 0 {
		c.policyPeriod = period
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default: // a wake-up is already pending; the loop reads the newest settings
	}
}

// period is the time from the start of one pass to the start of the next.
func (c *fragmentationCollector) period() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.policyPeriod > 0 {
		return c.policyPeriod
	}
	return c.opts.Period
}

// waitNextPass waits until a period after began, re-arming when the policy changes the period
// and returning early when it adds a root. False when the collector is closing.
func (c *fragmentationCollector) waitNextPass(ctx context.Context, began time.Time) bool {
	for {
		wait := time.NewTimer(time.Until(began.Add(c.period())))
		select {
		case <-ctx.Done():
			wait.Stop()
			return false
		case <-wait.C:
			return true
		case <-c.wake:
			wait.Stop()
			c.mu.Lock()
			now := c.rescanNow
			c.rescanNow = false
			c.mu.Unlock()
			if now {
				return true
			}
		}
	}
}
