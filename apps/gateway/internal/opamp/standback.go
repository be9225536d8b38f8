package opamp

import (
	"context"
	"time"
)

// A fleet-wide policy change makes every agent speak at once, and the fleet waits for its
// confirmations. The two periodic bulk jobs of the server (the agents' and servers' rows, the
// credential sweep) stand back while a change is pushed or confirmed (Server.changeInFlight), for
// a bounded time each, so they do not compete with the writes someone waits for.

// yieldPoll is how often work standing back asks again whether it may go on.
const yieldPoll = 20 * time.Millisecond

// standBack waits while busy says a policy change goes first (asked every yieldPoll), until the
// wait that bound starts is over or ctx ends. bound is only started when busy is true at first.
func standBack(ctx context.Context, busy func() bool, bound func() <-chan time.Time) {
	if !busy() {
		return
	}
	over := bound()
	poll := time.NewTicker(yieldPoll)
	defer poll.Stop()
	for busy() {
		select {
		case <-ctx.Done():
			return
		case <-over:
			return
		case <-poll.C:
		}
	}
}

// wait names one of the waits that decide when the periodic bulk jobs run.
type wait string

const (
	waitRowsLinger     wait = "agent rows: gathering"           // SeenFlushInterval after the first value
	waitRowsStandBack  wait = "agent rows: standing back"       // at most SeenFlushInterval
	waitSweepPeriod    wait = "credential sweep: period"        // half the credential TTL
	waitSweepStandBack wait = "credential sweep: standing back" // at most a quarter of the TTL
)

// timers start those waits: time.After, unless a test set Settings.timers to fire them by hand
// (it then checks the order of what ran, never how long a busy machine took).
type timers func(w wait, d time.Duration) <-chan time.Time

// timer is the start of one named wait.
func (s *Server) timer(w wait) func(time.Duration) <-chan time.Time {
	return func(d time.Duration) <-chan time.Time {
		if s.settings.timers != nil {
			return s.settings.timers(w, d)
		}
		return time.After(d)
	}
}
