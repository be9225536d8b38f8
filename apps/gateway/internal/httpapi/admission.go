package httpapi

import (
	"context"
	"sync/atomic"
	"time"
)

// admission bounds the requests that write to the database: a few run, a few more wait a
// short while, the rest are told to come back (429) instead of piling up on the pool.
type admission struct {
	slots      chan struct{}
	waiting    atomic.Int64
	maxWaiting int64
	maxWait    time.Duration
}

func newAdmission(concurrent, queued int, maxWait time.Duration) *admission {
	return &admission{slots: make(chan struct{}, concurrent), maxWaiting: int64(queued), maxWait: maxWait}
}

// acquire returns a release function, or ok=false when the gateway is saturated.
func (a *admission) acquire(ctx context.Context) (release func(), ok bool) {
	release = func() { <-a.slots }
	select {
	case a.slots <- struct{}{}:
		return release, true
	default:
	}
	if a.waiting.Add(1) > a.maxWaiting {
		a.waiting.Add(-1)
		return nil, false
	}
	defer a.waiting.Add(-1)
	timer := time.NewTimer(a.maxWait)
	defer timer.Stop()
	select {
	case a.slots <- struct{}{}:
		return release, true
	case <-timer.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}
