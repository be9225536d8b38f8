package opamp

import (
	"sync"
	"testing"
	"time"
)

// handTimers ends the driven waits (Settings.timers) only when the test fires them; every other
// wait is time.After. The tests below check what ran in which order, never how long it took.
type handTimers struct {
	mu      sync.Mutex
	waiting map[wait][]chan time.Time   // started, not fired yet
	started map[wait]chan time.Duration // each start of a driven wait, with its length
	more    chan struct{}               // a driven wait started
}

func newHandTimers(driven ...wait) *handTimers {
	h := &handTimers{waiting: map[wait][]chan time.Time{}, started: map[wait]chan time.Duration{}, more: make(chan struct{}, 1)}
	for _, w := range driven {
		h.started[w] = make(chan time.Duration, 64)
	}
	return h
}

func (h *handTimers) after(w wait, d time.Duration) <-chan time.Time {
	started, driven := h.started[w]
	if !driven {
		return time.After(d)
	}
	ch := make(chan time.Time, 1)
	h.mu.Lock()
	h.waiting[w] = append(h.waiting[w], ch)
	h.mu.Unlock()
	select {
	case started <- d:
	default: // nobody looks at that many
	}
	signal(h.more)
	return ch
}

// fire ends every started wait w, after waiting for one to start if none has.
func (h *handTimers) fire(t *testing.T, w wait) {
	t.Helper()
	guard := time.After(60 * time.Second)
	for {
		h.mu.Lock()
		waiting := h.waiting[w]
		h.waiting[w] = nil
		h.mu.Unlock()
		for _, ch := range waiting {
			ch <- time.Now()
		}
		if len(waiting) > 0 {
			return
		}
		select {
		case <-h.more:
		case <-guard:
			t.Fatalf("no %q wait ever started", w)
		}
	}
}

// expectStarted waits until a wait w starts and checks its length.
func (h *handTimers) expectStarted(t *testing.T, w wait, want time.Duration) {
	t.Helper()
	select {
	case d := <-h.started[w]:
		if d != want {
			t.Fatalf("%q started for %s, want %s", w, d, want)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("no %q wait ever started", w)
	}
}

// expectStandingBack fails when done reports the work done before it started standing back
// (the start of w, its bound), and checks the bound's length.
func (h *handTimers) expectStandingBack(t *testing.T, w wait, bound time.Duration, done <-chan bool, work string) {
	t.Helper()
	select {
	case <-done:
		t.Fatalf("%s went ahead while told to stand back (a policy change in flight)", work)
	case d := <-h.started[w]:
		if d != bound {
			t.Fatalf("%s stands back for %s at most, want %s", work, d, bound)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("%s neither went ahead nor stood back", work)
	}
}

// expectDone waits for the work and checks whether it came while the confirmations were held.
func expectDone(t *testing.T, done <-chan bool, duringConfirmations bool, work string) {
	t.Helper()
	select {
	case during := <-done:
		if during != duringConfirmations {
			t.Fatalf("%s went ahead with the confirmations held: %v, want %v", work, during, duringConfirmations)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("%s never went ahead", work)
	}
}

// After a policy change, a write of the agents' rows (last seen, effective config: a row per
// agent) that falls due while the confirmations are being written stands back, so a fleet-wide
// change's 10,000-row flush does not compete with the APPLIED rows everyone waits for. It goes
// ahead once they are written, or when its bound (one SeenFlushInterval) is over even if they
// are not. The test ends the waits by hand.
func TestAgentRowsWaitForTheConfirmations(t *testing.T) {
	const fleetSize = 5
	const interval = 300 * time.Millisecond
	timers := newHandTimers(waitRowsLinger, waitRowsStandBack)
	h, counting := newCountingHarness(t, func(s *Settings) { s.SeenFlushInterval, s.timers = interval, timers.after })
	const work = "the write of the agents' rows"
	// Nothing of the fleet's rows is written yet: the writer waits for its gathering to end.
	f := h.startFleet(fleetSize, agentOptions{})
	timers.expectStarted(t, waitRowsLinger, interval)

	// Falling due while the confirmations are being written: it waits for them to be written.
	release := counting.holdConfirmations(t)
	hash := h.pushFleetPolicy(f, 45)
	counting.confirmationsHeld(t)
	timers.fire(t, waitRowsLinger)
	timers.expectStandingBack(t, waitRowsStandBack, interval, counting.reportWrites, work)
	release() // its bound is never over: only the confirmations' end lets it go ahead
	expectDone(t, counting.reportWrites, false, work)
	h.fleetApplied(hash, fleetSize)

	// Confirmations that take long: it goes ahead when its bound is over, while they go on.
	release = counting.holdConfirmations(t)
	hash = h.pushFleetPolicy(f, 60)
	counting.confirmationsHeld(t)
	timers.fire(t, waitRowsLinger)
	timers.expectStandingBack(t, waitRowsStandBack, interval, counting.reportWrites, work)
	timers.fire(t, waitRowsStandBack)
	expectDone(t, counting.reportWrites, true, work)
	release()
	h.fleetApplied(hash, fleetSize)
}

// A credential sweep that falls due while a policy change is being confirmed waits for the
// confirmations to be written, or for a quarter of the credential TTL at most: sweeps are
// delayed, never stopped, and every connection stays open. The test ends the waits by hand.
func TestCredentialSweepsWaitForTheConfirmations(t *testing.T) {
	timers := newHandTimers(waitSweepPeriod, waitSweepStandBack)
	h, counting := newCountingHarness(t, func(s *Settings) { s.timers = timers.after })
	const work = "the credential sweep"
	timers.expectStarted(t, waitSweepPeriod, testCredentialTTL/2)
	f := h.startFleet(1, agentOptions{})

	release := counting.holdConfirmations(t)
	hash := h.pushFleetPolicy(f, 45)
	counting.confirmationsHeld(t)
	timers.fire(t, waitSweepPeriod)
	timers.expectStandingBack(t, waitSweepStandBack, testCredentialTTL/4, counting.sweeps, work)
	release() // its bound is never over: only the confirmations' end lets it go ahead
	expectDone(t, counting.sweeps, false, work)
	h.fleetApplied(hash, 1)

	release = counting.holdConfirmations(t)
	hash = h.pushFleetPolicy(f, 60)
	counting.confirmationsHeld(t)
	timers.fire(t, waitSweepPeriod)
	timers.expectStandingBack(t, waitSweepStandBack, testCredentialTTL/4, counting.sweeps, work)
	timers.fire(t, waitSweepStandBack)
	expectDone(t, counting.sweeps, true, work)
	release()
	h.fleetApplied(hash, 1)

	timers.fire(t, waitSweepPeriod) // and the sweeps go on
	expectDone(t, counting.sweeps, false, work)
	if n := h.server.ConnectedAgents(); n != 1 {
		t.Fatalf("%d agents connected after the sweeps, want 1", n)
	}
}
