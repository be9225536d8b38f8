// Package groupcommit coalesces concurrent export requests from many agents into one database
// transaction every few milliseconds (store.WriteGroup): the database pays per statement and per
// commit, so a hundred agents' batches in one COPY per table cost little more than one agent's.
//
// Concurrency: Write may be called from any number of goroutines. A dispatcher goroutine
// collects requests; when the window since the first waiting request has passed (or a group is
// full) and a writer goroutine is free, it hands the writer every waiting request of the oldest
// request's organisation. While all writers are busy requests keep collecting, so groups grow
// with the load; a request with no other call in flight is written at once, and otherwise the
// first of a group waits at most one window.
package groupcommit

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// GroupWriter writes one group in one transaction (store.Store).
type GroupWriter interface {
	WriteGroup(ctx context.Context, members []store.Member) ([]store.Outcome, error)
}

var _ GroupWriter = (*store.Store)(nil)

// Settings configure a Committer; zero values take the defaults.
type Settings struct {
	Store GroupWriter
	// Window is how long the first request of a group waits for others; zero hands it to a
	// free writer at once (requests still coalesce while every writer is busy).
	Window time.Duration
	// MaxMembers is the most requests in one group (default 256).
	MaxMembers int
	// Writers is how many groups are written at once, each on its own connection (default 2).
	Writers int
	// WaitAlone makes even a lone request wait its window, so a test decides which requests
	// share a group (MaxMembers reached); in production a lone request is written at once.
	WaitAlone bool
	// Timeout bounds one group's transaction; past it the database counts as down (default 15 s).
	Timeout time.Duration
}

// ErrClosed: the committer was closed (the gateway is shutting down); the agent retries.
var ErrClosed = errors.New("the gateway is shutting down and takes no more writes")

// Committer is the group commit of the export path.
type Committer struct {
	settings Settings
	in       chan *request
	work     chan []*request
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	groups, members atomic.Int64 // written (or attempted), for GET /metrics
	waiting         atomic.Int64 // requests collected by the dispatcher, not yet handed to a writer
	callers         atomic.Int64 // Write calls not yet answered, collected or not
}

// Groups is how many group transactions were attempted since start.
func (c *Committer) Groups() int64 { return c.groups.Load() }

// Members is how many requests those groups held: Members ÷ Groups is the average group size.
func (c *Committer) Members() int64 { return c.members.Load() }

type request struct {
	ctx    context.Context
	member store.Member
	reply  chan store.Outcome // buffered: a writer never waits for a caller that gave up
}

// New starts the dispatcher and the writers; Close stops them.
func New(settings Settings) *Committer {
	if settings.MaxMembers <= 0 {
		settings.MaxMembers = 256
	}
	if settings.Writers <= 0 {
		settings.Writers = 2
	}
	if settings.Timeout <= 0 {
		settings.Timeout = 15 * time.Second
	}
	c := &Committer{settings: settings, in: make(chan *request), work: make(chan []*request), stop: make(chan struct{})}
	c.wg.Add(1 + settings.Writers)
	go c.dispatch()
	for i := 0; i < settings.Writers; i++ {
		go c.write()
	}
	return c
}

// Write waits for the group holding this request to commit and returns the request's own
// outcome: its result, its own error (an unknown or revoked credential, data the database
// refused), or the group's error (the database is down) when nothing was written. If ctx ends
// first the outcome is unknown to the caller; the request may still commit, and the agent's
// retry is then acknowledged as a replay.
func (c *Committer) Write(ctx context.Context, agent store.Agent, batches []telemetry.Batch) (store.WriteResult, error) {
	c.callers.Add(1)
	defer c.callers.Add(-1)
	r := &request{ctx: ctx, member: store.Member{Agent: agent, Batches: batches}, reply: make(chan store.Outcome, 1)}
	select {
	case c.in <- r:
	case <-ctx.Done():
		return store.WriteResult{}, ctx.Err()
	case <-c.stop:
		return store.WriteResult{}, ErrClosed
	}
	select {
	case outcome := <-r.reply:
		return outcome.Result, outcome.Err
	case <-ctx.Done():
		return store.WriteResult{}, ctx.Err()
	}
}

// Close stops taking requests, writes the groups already collected and waits for them.
func (c *Committer) Close() {
	c.stopOnce.Do(func() { close(c.stop) })
	c.wg.Wait()
}

func (c *Committer) dispatch() {
	defer c.wg.Done()
	defer close(c.work)
	var pending []*request
	var window <-chan time.Time
	ready := false // the oldest waiting request has waited its window, or a group is full
	for {
		var send chan []*request
		var group []*request
		if ready && len(pending) > 0 {
			group = oldestOrganisation(pending, c.settings.MaxMembers)
			send = c.work
		}
		select {
		case r := <-c.in:
			pending = append(pending, r)
			c.waiting.Store(int64(len(pending)))
			if len(pending) == 1 && !ready {
				// A lone caller (an agent replaying its spool one request after another, a quiet
				// gateway) has nobody to wait for; while other calls are in flight, later ones
				// are likely to join within the window.
				if c.callers.Load() <= 1 && !c.settings.WaitAlone {
					ready = true
				} else {
					window = time.After(c.settings.Window)
				}
			}
			if len(pending) >= c.settings.MaxMembers {
				ready = true
			}
		case <-window:
			window, ready = nil, true
		case send <- group:
			pending = without(pending, group)
			c.waiting.Store(int64(len(pending)))
			if len(pending) == 0 {
				ready = false
			}
		case <-c.stop:
			for len(pending) > 0 {
				group = oldestOrganisation(pending, c.settings.MaxMembers)
				c.work <- group
				pending = without(pending, group)
			}
			return
		}
	}
}

// oldestOrganisation returns the waiting requests of the oldest request's organisation, up to
// max, oldest first: a transaction is scoped to one organisation (row-level security).
func oldestOrganisation(pending []*request, max int) []*request {
	org := pending[0].member.Agent.OrgID
	group := make([]*request, 0, min(len(pending), max))
	for _, r := range pending {
		if r.member.Agent.OrgID == org && len(group) < max {
			group = append(group, r)
		}
	}
	return group
}

func without(pending, group []*request) []*request {
	taken := make(map[*request]bool, len(group))
	for _, r := range group {
		taken[r] = true
	}
	rest := pending[:0]
	for _, r := range pending {
		if !taken[r] {
			rest = append(rest, r)
		}
	}
	// Clear the tail so finished requests are not kept alive by the backing array.
	clear(pending[len(rest):])
	return rest
}

func (c *Committer) write() {
	defer c.wg.Done()
	for group := range c.work {
		c.writeGroup(group)
	}
}

// writeGroup drops requests whose caller already gave up (nothing of theirs is written), writes
// the rest under the group's own deadline (one caller leaving must not cancel the others) and
// answers each.
func (c *Committer) writeGroup(group []*request) {
	live := group[:0:0]
	for _, r := range group {
		if err := r.ctx.Err(); err != nil {
			r.reply <- store.Outcome{Err: err}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	members := make([]store.Member, len(live))
	for i, r := range live {
		members[i] = r.member
	}
	c.groups.Add(1)
	c.members.Add(int64(len(live)))
	ctx, cancel := context.WithTimeout(context.Background(), c.settings.Timeout)
	defer cancel()
	outcomes, err := c.settings.Store.WriteGroup(ctx, members)
	for i, r := range live {
		if err != nil {
			r.reply <- store.Outcome{Err: err}
			continue
		}
		r.reply <- outcomes[i]
	}
}
