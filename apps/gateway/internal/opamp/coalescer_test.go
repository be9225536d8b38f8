package opamp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// A write takes at most maxBatch values, a failed write loses nothing (its values come back,
// merged under newer ones), and the merge keeps an APPLIED (with its arrival time) and the hash
// sent that a later status followed.
func TestCoalescerBoundsBatchesAndKeepsFailedOnes(t *testing.T) {
	var mu sync.Mutex
	var sizes []int
	written := map[string]store.AgentUpdate{}
	fail := true
	c := newCoalescer("test", time.Hour, 2, true, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)), mergeUpdates,
		func(_ context.Context, batch []store.AgentUpdate) error {
			mu.Lock()
			defer mu.Unlock()
			sizes = append(sizes, len(batch))
			if fail {
				return errors.New("refused")
			}
			for _, u := range batch {
				written[u.Agent.ID] = u
			}
			return nil
		})
	at := time.Now()
	for _, id := range []string{"a", "b", "c"} {
		c.add(id, store.AgentUpdate{Agent: store.Agent{ID: id}, SeenAt: at,
			Policy: &store.PolicyUpdate{Latest: store.PolicyReport{Hash: "h1", State: store.PolicyApplied}, AppliedHash: "h1", AppliedAt: at, Sent: "h1"}})
	}
	if c.flush(context.Background()) {
		t.Fatal("a refused write reported success")
	}
	c.add("a", store.AgentUpdate{Agent: store.Agent{ID: "a"}, SeenAt: at.Add(time.Second),
		Policy: &store.PolicyUpdate{Latest: store.PolicyReport{Hash: "h2", State: store.PolicyFailed}}})
	fail = false
	for c.flush(context.Background()) {
		c.mu.Lock()
		left := len(c.pending)
		c.mu.Unlock()
		if left == 0 {
			break
		}
	}
	for _, n := range sizes {
		if n > 2 {
			t.Fatalf("a write of %d values, above maxBatch 2 (all writes: %v)", n, sizes)
		}
	}
	if len(written) != 3 {
		t.Fatalf("written %d agents after the retry, want 3", len(written))
	}
	a := written["a"]
	if a.Policy.Latest.Hash != "h2" || a.Policy.AppliedHash != "h1" || !a.Policy.AppliedAt.Equal(at) || a.Policy.Sent != "h1" ||
		!a.SeenAt.Equal(at.Add(time.Second)) {
		t.Fatalf("agent a merged as %+v (seen %s); want latest h2 failed, applied h1 when it arrived, sent h1, the newer seen time", a.Policy, a.SeenAt)
	}
}

// Two writers share the work but never one agent: while a write holds an agent's older value,
// its newer one waits (another agent's value goes out meanwhile) and is written after it.
func TestCoalescerWritersNeverOvertakeAnAgent(t *testing.T) {
	first := time.Now()
	started, release := make(chan struct{}), make(chan struct{})
	written := make(chan store.AgentUpdate, 8)
	c := newCoalescer("test", time.Millisecond, 10, false, 10*time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)), mergeUpdates,
		func(_ context.Context, batch []store.AgentUpdate) error {
			for _, u := range batch {
				if u.Agent.ID == "a" && u.SeenAt.Equal(first) {
					close(started)
					<-release // the older value's write is slow
				}
			}
			for _, u := range batch {
				written <- u
			}
			return nil
		})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); c.run(ctx) }()
	}
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	defer func() { unblock(); stop(); wg.Wait() }() // a failed check must not leave the slow write blocked

	c.add("a", store.AgentUpdate{Agent: store.Agent{ID: "a"}, SeenAt: first})
	<-started
	c.add("a", store.AgentUpdate{Agent: store.Agent{ID: "a"}, SeenAt: first.Add(time.Second)})
	c.add("b", store.AgentUpdate{Agent: store.Agent{ID: "b"}, SeenAt: first})
	if u := <-written; u.Agent.ID != "b" {
		t.Fatalf("while a's first write was in flight the other writer wrote %s at %s, want only b", u.Agent.ID, u.SeenAt)
	}
	unblock()
	for _, want := range []time.Time{first, first.Add(time.Second)} {
		if u := <-written; u.Agent.ID != "a" || !u.SeenAt.Equal(want) {
			t.Fatalf("wrote %s seen %s, want a seen %s (a's values in order)", u.Agent.ID, u.SeenAt, want)
		}
	}
}

// A writer told to stand back holds its batch while yield says so, until its bound (maxYield)
// is over; a writer not told to goes ahead. The test ends the linger and the bound by hand.
func TestCoalescerStandsBackForAtMostMaxYield(t *testing.T) {
	const maxYield = 400 * time.Millisecond
	start := func(busy *atomic.Bool) (*coalescer[store.AgentUpdate], *handTimers, chan bool) {
		written := make(chan bool, 4)
		c := newCoalescer("test", 10*time.Millisecond, 10, false, time.Second, slog.New(slog.NewTextHandler(io.Discard, nil)), mergeUpdates,
			func(context.Context, []store.AgentUpdate) error { written <- busy.Load(); return nil })
		timers := newHandTimers(waitRowsLinger, waitRowsStandBack)
		c.yield, c.maxYield = busy.Load, maxYield
		c.lingerTimer = func(d time.Duration) <-chan time.Time { return timers.after(waitRowsLinger, d) }
		c.yieldTimer = func(d time.Duration) <-chan time.Time { return timers.after(waitRowsStandBack, d) }
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { c.run(ctx); close(done) }()
		t.Cleanup(func() { stop(); <-done })
		return c, timers, written
	}
	const work = "the write"

	// Not busy: written once the linger is over, without standing back.
	var quiet atomic.Bool
	c, timers, written := start(&quiet)
	c.add("a", store.AgentUpdate{Agent: store.Agent{ID: "a"}})
	timers.fire(t, waitRowsLinger)
	expectDone(t, written, false, work)
	if len(timers.started[waitRowsStandBack]) != 0 {
		t.Fatal("the writer stood back while yield said quiet")
	}

	// Busy throughout: written once its bound is over, not before.
	var busy atomic.Bool
	busy.Store(true)
	c, timers, written = start(&busy)
	c.add("b", store.AgentUpdate{Agent: store.Agent{ID: "b"}})
	timers.fire(t, waitRowsLinger)
	timers.expectStandingBack(t, waitRowsStandBack, maxYield, written, work)
	timers.fire(t, waitRowsStandBack)
	expectDone(t, written, true, work)

	// Busy for a while, with a bound that never ends: written once yield says quiet.
	var busyAWhile atomic.Bool
	busyAWhile.Store(true)
	c, timers, written = start(&busyAWhile)
	c.add("c", store.AgentUpdate{Agent: store.Agent{ID: "c"}})
	timers.fire(t, waitRowsLinger)
	timers.expectStandingBack(t, waitRowsStandBack, maxYield, written, work)
	busyAWhile.Store(false)
	expectDone(t, written, false, work)
}
