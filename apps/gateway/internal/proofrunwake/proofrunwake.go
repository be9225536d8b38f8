// Package proofrunwake wakes agents waiting for proof-run work and fails runs whose agent went
// silent. One LISTEN connection per gateway hears spindle_proof_run_changed (a run queued or its
// cancel requested, on any gateway or console) and wakes the long polls of that server held
// here; a sweep fails runs no agent has reported on for Silence. docs/agent-protocol.md,
// "Proof runs".
package proofrunwake

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Channel is NOTIFYed by proof_runs' trigger with {"serverId", "runId", "status"}.
const Channel = "spindle_proof_run_changed"

// Store is what the waker needs from the database. *store.Store implements it.
type Store interface {
	Listen(ctx context.Context, channels ...string) (*pgx.Conn, error)
	FailSilentProofRuns(ctx context.Context, silence time.Duration) (int64, error)
}

// Settings configure the waker. Store and Logger are required.
type Settings struct {
	Store  Store
	Logger *slog.Logger
	// Silence is how long a running run may go without a word from its agent before it is
	// failed. Agents report at least every 10 s while running. Default 90 s.
	Silence time.Duration
	// SweepEvery is how often silent runs are looked for. Default 15 s.
	SweepEvery time.Duration
	// RetryAfter is the pause before listening again after the connection was lost. Default 1 s.
	RetryAfter time.Duration
	// OnListening, if set, is called each time the LISTEN connection is (re)established and the
	// waiters of before have been woken (tests).
	OnListening func()
}

// Waker hands out wake-ups per server.
type Waker struct {
	settings Settings
	mu       sync.Mutex
	waiting  map[string]map[chan struct{}]struct{}
}

// New prepares a waker; Run listens and sweeps.
func New(settings Settings) (*Waker, error) {
	if settings.Store == nil || settings.Logger == nil {
		return nil, errors.New("proofrunwake: Settings.Store and Settings.Logger are required")
	}
	if settings.Silence <= 0 {
		settings.Silence = 90 * time.Second
	}
	if settings.SweepEvery <= 0 {
		settings.SweepEvery = 15 * time.Second
	}
	if settings.RetryAfter <= 0 {
		settings.RetryAfter = time.Second
	}
	return &Waker{settings: settings, waiting: map[string]map[chan struct{}]struct{}{}}, nil
}

// Wait returns a channel closed at the next change of one of serverID's runs, and a function
// to call when no longer waiting.
func (w *Waker) Wait(serverID string) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	w.mu.Lock()
	if w.waiting[serverID] == nil {
		w.waiting[serverID] = map[chan struct{}]struct{}{}
	}
	w.waiting[serverID][ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := w.waiting[serverID][ch]; ok {
			delete(w.waiting[serverID], ch)
			if len(w.waiting[serverID]) == 0 {
				delete(w.waiting, serverID)
			}
		}
	}
}

// wake closes the wait channels of serverID ("" wakes every server: changes may have been missed).
func (w *Waker) wake(serverID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, waiters := range w.waiting {
		if serverID != "" && id != serverID {
			continue
		}
		for ch := range waiters {
			close(ch)
		}
		delete(w.waiting, id)
	}
}

// Run listens and sweeps until ctx ends.
func (w *Waker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.sweep(ctx) }()
	w.listen(ctx)
	wg.Wait()
}

func (w *Waker) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := w.settings.Store.Listen(ctx, Channel)
		if err != nil {
			if ctx.Err() == nil {
				w.settings.Logger.Warn("cannot listen for proof-run changes; agents still poll, retrying", "error", err)
				sleep(ctx, w.settings.RetryAfter*5)
			}
			continue
		}
		w.wake("") // anything announced while not listening was lost: let every waiter look
		if w.settings.OnListening != nil {
			w.settings.OnListening()
		}
		for {
			notification, err := conn.WaitForNotification(ctx)
			if err != nil {
				break
			}
			var change struct {
				ServerID string `json:"serverId"`
			}
			if json.Unmarshal([]byte(notification.Payload), &change) != nil || change.ServerID == "" {
				w.settings.Logger.Warn("ignored a malformed proof-run notification", "payload", notification.Payload)
				continue
			}
			w.wake(change.ServerID)
		}
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = conn.Close(closeCtx)
		cancel()
		sleep(ctx, w.settings.RetryAfter)
	}
}

func (w *Waker) sweep(ctx context.Context) {
	ticker := time.NewTicker(w.settings.SweepEvery)
	defer ticker.Stop()
	for {
		sweepCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		failed, err := w.settings.Store.FailSilentProofRuns(sweepCtx, w.settings.Silence)
		cancel()
		switch {
		case err != nil && ctx.Err() == nil:
			w.settings.Logger.Warn("could not look for silent proof runs", "error", err)
		case failed > 0:
			w.settings.Logger.Info("failed proof runs whose agent went silent", "runs", failed, "silence", w.settings.Silence.String())
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
