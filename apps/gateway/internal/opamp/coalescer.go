package opamp

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// coalescer gathers per-key values and writes them in batches: the first value added after a
// write starts a wait of `linger`, then what was gathered meanwhile goes out together, at most
// maxBatch per write (sooner when maxBatch values are waiting and the coalescer is eager). A value added for a key already waiting is merged into it,
// so an agent heard from many times in one wait costs one row. A failed write keeps the whole
// batch, merged under anything newer that arrived meanwhile, and is retried after a backoff:
// nothing an agent said is lost to a database outage shorter than the gateway's life.
//
// Several run loops may write at once (disjoint batches, on their own connections); a key is in
// at most one write at a time, so an agent's newer value is never overtaken by an older one.
type coalescer[V any] struct {
	name     string
	linger   time.Duration
	maxBatch int
	eager    bool // write as soon as maxBatch values wait, without waiting out the linger
	merge    func(older, newer V) V
	write    func(ctx context.Context, batch []V) error
	timeout  time.Duration
	log      *slog.Logger
	onFlush  func(n int, err error) // observers (tests); may be nil
	// yield, when set, holds a write whose linger is over for as long as it reports true (asked
	// every yieldPoll), at most maxYield: a writer of less urgent rows stands back while the
	// writes someone waits for go out, instead of competing with them for the database.
	yield    func() bool
	maxYield time.Duration
	// lingerTimer and yieldTimer start the linger and the maxYield wait (time.After when nil).
	lingerTimer, yieldTimer func(time.Duration) <-chan time.Time

	mu       sync.Mutex
	pending  map[string]V
	inflight map[string]struct{} // keys being written now; their newer values wait for the next write
	lastAdd  time.Time           // when a value was last added
	wake     chan struct{}       // a value is waiting
	full     chan struct{}       // maxBatch values are waiting
}

func newCoalescer[V any](name string, linger time.Duration, maxBatch int, eager bool, timeout time.Duration, log *slog.Logger,
	merge func(older, newer V) V, write func(context.Context, []V) error) *coalescer[V] {
	return &coalescer[V]{name: name, linger: linger, maxBatch: maxBatch, eager: eager, merge: merge, write: write, timeout: timeout,
		log: log, pending: map[string]V{}, inflight: map[string]struct{}{}, wake: make(chan struct{}, 1), full: make(chan struct{}, 1)}
}

// add queues v under key; it never blocks on the database.
func (c *coalescer[V]) add(key string, v V) {
	c.mu.Lock()
	if older, ok := c.pending[key]; ok {
		v = c.merge(older, v)
	}
	c.pending[key] = v
	c.lastAdd = time.Now()
	n := len(c.pending)
	c.mu.Unlock()
	signal(c.wake)
	if c.eager && n >= c.maxBatch {
		signal(c.full)
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// run writes batches until ctx ends, then writes what is left once more.
func (c *coalescer[V]) run(ctx context.Context) {
	failures := 0
	for {
		select {
		case <-ctx.Done():
			c.flush(context.Background())
			return
		case <-c.wake:
		}
		select {
		case <-ctx.Done():
		case <-c.start(c.lingerTimer, c.linger):
		case <-c.full:
		}
		if c.yield != nil {
			standBack(ctx, c.yield, func() <-chan time.Time { return c.start(c.yieldTimer, c.maxYield) })
		}
		if c.flush(ctx) {
			failures = 0
			continue
		}
		failures++
		signal(c.wake) // the kept batch is waiting again
		sleep(ctx, retryDelay(failures))
	}
}

// start starts a wait of d with timer, or time.After when it is nil.
func (c *coalescer[V]) start(timer func(time.Duration) <-chan time.Time, d time.Duration) <-chan time.Time {
	if timer == nil {
		return time.After(d)
	}
	return timer(d)
}

// busy says whether values are waiting or being written, or one was added within quiet.
func (c *coalescer[V]) busy(quiet time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) > 0 || len(c.inflight) > 0 || time.Since(c.lastAdd) < quiet
}

// flush writes up to maxBatch of the values pending (bounded, so one write fits its timeout on
// a busy database; the rest go out right after); on failure it puts the batch back and reports
// false.
func (c *coalescer[V]) flush(ctx context.Context) bool {
	c.mu.Lock()
	var taken map[string]V
	if len(c.inflight) == 0 && len(c.pending) <= c.maxBatch {
		taken, c.pending = c.pending, make(map[string]V, len(c.pending))
	} else {
		taken = make(map[string]V, min(c.maxBatch, len(c.pending)))
		left := false // a value that another write may take now
		for key, v := range c.pending {
			if _, busy := c.inflight[key]; busy {
				continue // after the write that holds its older value
			}
			if len(taken) == c.maxBatch {
				left = true
				break
			}
			taken[key] = v
			delete(c.pending, key)
		}
		if left {
			signal(c.wake)
			signal(c.full) // no linger for the rest
		}
	}
	for key := range taken {
		c.inflight[key] = struct{}{}
	}
	c.mu.Unlock()
	if len(taken) == 0 {
		return true
	}
	defer func() {
		c.mu.Lock()
		for key := range taken {
			delete(c.inflight, key)
		}
		waiting := len(c.pending) > 0
		c.mu.Unlock()
		if waiting {
			signal(c.wake) // values that waited for this write
		}
	}()
	batch := make([]V, 0, len(taken))
	for _, v := range taken {
		batch = append(batch, v)
	}
	writeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	started := time.Now()
	err := c.write(writeCtx, batch)
	cancel()
	c.log.Debug("wrote a batch of OpAMP reports", "batch", c.name, "agents", len(batch), "took", time.Since(started).String(), "error", err)
	if c.onFlush != nil {
		c.onFlush(len(batch), err)
	}
	if err == nil {
		return true
	}
	c.log.Warn("could not write a batch of OpAMP reports; keeping it and retrying", "batch", c.name, "agents", len(batch), "error", err)
	c.mu.Lock()
	for key, older := range taken {
		if newer, ok := c.pending[key]; ok {
			c.pending[key] = c.merge(older, newer)
		} else {
			c.pending[key] = older
		}
	}
	c.mu.Unlock()
	return false
}

// retryDelay doubles from 100 ms up to 5 s.
func retryDelay(failures int) time.Duration {
	return min(100*time.Millisecond<<min(failures-1, 6), 5*time.Second)
}

// mergeUpdates folds a newer update of an agent into an older one still waiting: the newest
// seen time, report fields and policy status win, capabilities merge key by key, and an APPLIED
// (with the time it arrived) and the policy sent in the older one survive a later status
// without them.
func mergeUpdates(older, newer store.AgentUpdate) store.AgentUpdate {
	merged := newer
	if older.SeenAt.After(merged.SeenAt) {
		merged.SeenAt = older.SeenAt
	}
	if merged.Report.Host == nil {
		merged.Report.Host = older.Report.Host
	}
	if merged.Report.Health == nil {
		merged.Report.Health = older.Report.Health
	}
	if merged.Report.EffectiveConfig == nil {
		merged.Report.EffectiveConfig = older.Report.EffectiveConfig
	}
	if older.Report.Capabilities != nil {
		capabilities := map[string]any{}
		for k, v := range older.Report.Capabilities {
			capabilities[k] = v
		}
		for k, v := range newer.Report.Capabilities {
			capabilities[k] = v
		}
		merged.Report.Capabilities = capabilities
	}
	switch {
	case merged.Policy == nil:
		merged.Policy = older.Policy
	case older.Policy != nil:
		policy := *merged.Policy
		if policy.AppliedHash == "" {
			policy.AppliedHash, policy.AppliedAt = older.Policy.AppliedHash, older.Policy.AppliedAt
		}
		if policy.Sent == "" {
			policy.Sent = older.Policy.Sent // the last policy sent is still the one the row waits for
		}
		merged.Policy = &policy
	}
	return merged
}
