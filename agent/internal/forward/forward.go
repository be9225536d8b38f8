// Package forward delivers spooled batches to the gateway, oldest first: one request at a
// time, carrying the oldest batch and, when a backlog waits, the following ones up to
// MaxBatchesPerRequest (an OTLP request holds any number of ResourceMetrics, and concatenated
// protobuf messages and gzip members are one valid request), so a long outage replays at
// many batches per request rather than at the gateway's request rate.
//
// Exactly-once delivery rests on two rules kept here: a batch is deleted only after a 2xx,
// and no batch is sent before every older one is acknowledged or rejected for good. The
// gateway acknowledges a replayed batch (sequence at or below its high-water mark) without
// writing it again. Responses follow docs/agent-protocol.md:
//
//	2xx          delivered: delete, send the next
//	400 413 415  can never succeed: move to spool/rejected/, send the next (a request of
//	             several batches is first resent one batch at a time, to find the bad one)
//	401 403      credential refused: keep everything, retry slowly, status says re-enrol
//	429          wait Retry-After (+ jitter), resend
//	5xx, network backoff exponentially with jitter (capped), resend
package forward

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/spool"
)

// Settings configure a Forwarder. Zero durations take the defaults.
type Settings struct {
	Gateway string // base URL; batches go to <Gateway>/v1/metrics
	// Collector, when set, is an OpenTelemetry Collector's base URL that batches go to instead,
	// each ResourceMetrics carrying the credential (relay.go).
	Collector  string
	Credential string
	// CredentialFunc, when set, is read for every request instead of Credential, so a renewed
	// credential is used from the next request on (credential.Holder.Secret).
	CredentialFunc func() string
	UserAgent      string
	Spool          *spool.Spool
	Logger         *slog.Logger
	Client         *http.Client // default: 30 s timeout

	MinBackoff           time.Duration // first retry after a 5xx or network error; default 1 s
	MaxBackoff           time.Duration // cap; default 30 s
	UnauthenticatedRetry time.Duration // retry period while the credential is refused; default 60 s
	IdleCheck            time.Duration // re-read the spool when idle even without a signal; default 5 s

	// MaxBatchesPerRequest and MaxRequestBytes bound one request of a backlog's replay;
	// defaults 64 batches and 512 KiB of (compressed) body, well inside the gateway's limits.
	MaxBatchesPerRequest int
	MaxRequestBytes      int64

	// OnMark, when set, gets the gateway's batch high-water mark from every 2xx answer
	// (X-Spindle-Batch-Hwm, docs/agent-protocol.md): the agent raises its sequence above it.
	OnMark func(mark uint64)
}

// BatchHWMHeader is the gateway's answer header carrying the agent's high-water mark.
const BatchHWMHeader = "X-Spindle-Batch-Hwm"

// Status is what `spindle-agent status` shows about delivery.
type Status struct {
	LastDelivery     time.Time `json:"lastDelivery,omitzero"`
	LastDeliveredSeq uint64    `json:"lastDeliveredSeq,omitempty"`
	LastError        string    `json:"lastError,omitempty"`
	LastErrorAt      time.Time `json:"lastErrorAt,omitzero"`
	Unauthenticated  bool      `json:"unauthenticated"`
	FailedAttempts   int       `json:"failedAttempts"` // consecutive, reset by a delivery
	NextAttempt      time.Time `json:"nextAttempt,omitzero"`
}

// Forwarder sends batches. Run it in one goroutine; Status is safe to call from others.
type Forwarder struct {
	s   Settings
	url string

	// singlyUpTo: batches up to this sequence go one per request, after a request of several
	// was refused for good and the batch at fault must be found.
	singlyUpTo uint64

	mu     sync.Mutex
	status Status
}

// New applies defaults.
func New(s Settings) *Forwarder {
	if s.Client == nil {
		s.Client = &http.Client{Timeout: 30 * time.Second}
	}
	s.MinBackoff = orDefault(s.MinBackoff, time.Second)
	s.MaxBackoff = orDefault(s.MaxBackoff, 30*time.Second)
	s.UnauthenticatedRetry = orDefault(s.UnauthenticatedRetry, time.Minute)
	s.IdleCheck = orDefault(s.IdleCheck, 5*time.Second)
	if s.MaxBatchesPerRequest < 1 {
		s.MaxBatchesPerRequest = 64
	}
	if s.MaxRequestBytes < 1 {
		s.MaxRequestBytes = 512 << 10
	}
	base := s.Gateway
	if s.Collector != "" {
		base = s.Collector
	}
	return &Forwarder{s: s, url: strings.TrimRight(base, "/") + "/v1/metrics"}
}

func (f *Forwarder) credential() string {
	if f.s.CredentialFunc != nil {
		return f.s.CredentialFunc()
	}
	return f.s.Credential
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Status returns a snapshot.
func (f *Forwarder) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

// Run delivers until ctx is done. A batch in flight when ctx ends stays in the spool and is
// resent at the next start (the gateway deduplicates it).
func (f *Forwarder) Run(ctx context.Context) {
	for ctx.Err() == nil {
		limit := f.s.MaxBatchesPerRequest
		if f.singlyUpTo > 0 {
			limit = 1
		}
		batches, err := f.s.Spool.OldestBatches(limit, f.s.MaxRequestBytes)
		if err != nil {
			f.wait(ctx, f.failed(err))
			continue
		}
		if len(batches) == 0 {
			f.idle(ctx)
			continue
		}
		if batches[0].Seq >= f.singlyUpTo {
			f.singlyUpTo = 0
		}
		f.wait(ctx, f.deliver(ctx, batches))
	}
}

// idle waits for a new batch, with a periodic check in case a signal was missed.
func (f *Forwarder) idle(ctx context.Context) {
	timer := time.NewTimer(f.s.IdleCheck)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-f.s.Spool.Notify():
	case <-timer.C:
	}
}

func (f *Forwarder) wait(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	f.mu.Lock()
	f.status.NextAttempt = time.Now().Add(d)
	f.mu.Unlock()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}

// deliver sends one request of batches (oldest first), acts on the answer and returns how
// long to wait before the next attempt (0: go on at once).
func (f *Forwarder) deliver(ctx context.Context, batches []spool.Batch) time.Duration {
	first, last := batches[0].Seq, batches[len(batches)-1].Seq
	what := fmt.Sprintf("batch %d", first)
	if len(batches) > 1 {
		what = fmt.Sprintf("batches %d-%d", first, last)
	}
	used := f.credential()
	resp, err := f.post(ctx, batches, used)
	if err != nil {
		if ctx.Err() != nil {
			return 0 // shutting down: the batches stay spooled
		}
		return f.failed(fmt.Errorf("send %s: %w", what, err))
	}
	code, reason := resp.code, resp.reason
	switch {
	case code >= 200 && code < 300:
		if resp.mark > 0 && f.s.OnMark != nil {
			f.s.OnMark(resp.mark)
		}
		for _, b := range batches {
			if err := f.s.Spool.Remove(b.Seq); err != nil {
				return f.failed(err)
			}
		}
		f.mu.Lock()
		f.status = Status{LastDelivery: time.Now(), LastDeliveredSeq: last,
			LastError: f.status.LastError, LastErrorAt: f.status.LastErrorAt}
		f.mu.Unlock()
		return 0

	case (code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge || code == http.StatusUnsupportedMediaType) && len(batches) > 1:
		// One of them is at fault, or together they are too large: find out one at a time,
		// so the good ones are delivered and only the bad one is set aside.
		f.s.Logger.Warn("gateway refused a request of several batches; sending them one at a time", "first_seq", first,
			"last_seq", last, "status", code, "reason", reason)
		f.singlyUpTo = last
		return 0

	case code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge || code == http.StatusUnsupportedMediaType:
		f.s.Logger.Error("gateway rejected a batch for good; moved to spool/rejected", "seq", first, "status", code, "reason", reason)
		f.record(fmt.Errorf("batch %d rejected by the gateway (%d %s); kept in spool/rejected", first, code, reason), false)
		if err := f.s.Spool.Reject(first); err != nil {
			return f.failed(err)
		}
		return 0

	case (code == http.StatusUnauthorized || code == http.StatusForbidden) && f.credential() != used:
		// The credential was renewed while this request was under way, and the gateway refuses
		// the replaced one at once: send again with the new one rather than wait as if refused.
		f.s.Logger.Info("batches sent with the credential just replaced by a renewal; sending them again", "first_seq", first)
		return 0

	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		f.s.Logger.Warn("gateway refuses this agent's credential; batches are kept. Re-enrol with spindle-agent enroll --token <new token>",
			"status", code, "reason", reason)
		f.record(fmt.Errorf("the gateway refuses this agent's credential (%d %s): re-enrol with spindle-agent enroll --token <new token from the console>", code, reason), true)
		return withJitter(f.s.UnauthenticatedRetry, f.s.UnauthenticatedRetry/5)

	case code == http.StatusTooManyRequests:
		if after, ok := retryAfter(resp.retryAfter, time.Now()); ok && after > 0 {
			err := fmt.Errorf("gateway overloaded (429 %s): retrying %s after %s", reason, what, after)
			f.record(err, false)
			f.bumpFailures()
			return withJitter(after, after/5)
		}
		return f.failed(fmt.Errorf("gateway overloaded (429 %s) without a usable Retry-After", reason))

	default: // 5xx, 408, and anything unexpected (e.g. 404 from a wrong gateway URL): keep and retry
		return f.failed(fmt.Errorf("gateway answered %d %s for %s", code, reason, what))
	}
}

type response struct {
	code       int
	reason     string
	retryAfter string
	mark       uint64 // X-Spindle-Batch-Hwm; 0 when absent or unreadable
}

// post sends the batches as one request: their bodies one after the other, which is one
// ExportMetricsServiceRequest holding every batch's ResourceMetrics (and, gzipped, one gzip
// stream of several members).
func (f *Forwarder) post(ctx context.Context, batches []spool.Batch, credential string) (response, error) {
	bodies := make([][]byte, len(batches))
	for i, b := range batches {
		bodies[i] = b.Body
		if f.s.Collector != "" {
			body, err := withAgentCredential(b.Body, b.ContentEncoding, credential)
			if err != nil {
				return response{}, fmt.Errorf("batch %d: %w", b.Seq, err)
			}
			bodies[i] = body
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url, bytes.NewReader(bytes.Join(bodies, nil)))
	if err != nil {
		return response{}, err
	}
	if f.s.Collector == "" {
		// A Collector does not pass request headers on; the credential travels in the body.
		req.Header.Set("Authorization", "Bearer "+credential)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if encoding := batches[0].ContentEncoding; encoding != "" { // the same for all: OldestBatches
		req.Header.Set("Content-Encoding", encoding)
	}
	if f.s.UserAgent != "" {
		req.Header.Set("User-Agent", f.s.UserAgent)
	}
	resp, err := f.s.Client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	// Read (bounded) so the connection is reused, and keep the error reason for the status.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	mark, _ := strconv.ParseUint(strings.TrimSpace(resp.Header.Get(BatchHWMHeader)), 10, 64)
	return response{code: resp.StatusCode, reason: errorReason(resp, body), retryAfter: resp.Header.Get("Retry-After"), mark: mark}, nil
}

// errorReason extracts the gateway's {"error","reason"} JSON, falling back to the status text.
func errorReason(resp *http.Response, body []byte) string {
	if resp.StatusCode < 300 {
		return ""
	}
	var e struct {
		Error  string `json:"error"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(body, &e) == nil && (e.Reason != "" || e.Error != "") {
		return strings.TrimSpace(e.Reason + ": " + e.Error)
	}
	return http.StatusText(resp.StatusCode)
}

// failed records a transient failure and returns the next exponential backoff.
func (f *Forwarder) failed(err error) time.Duration {
	f.s.Logger.Warn("delivery failed; batch kept, retrying with backoff", "error", err)
	f.record(err, false)
	n := f.bumpFailures()
	d := f.s.MinBackoff << min(n-1, 16)
	if d <= 0 || d > f.s.MaxBackoff {
		d = f.s.MaxBackoff
	}
	// Equal jitter: at least half the backoff, so a fleet restarting together spreads out
	// without anyone retrying at once.
	return d/2 + rand.N(d/2+1)
}

func (f *Forwarder) record(err error, unauthenticated bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status.LastError = err.Error()
	f.status.LastErrorAt = time.Now()
	f.status.Unauthenticated = unauthenticated
}

func (f *Forwarder) bumpFailures() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status.FailedAttempts++
	return f.status.FailedAttempts
}

func withJitter(d, spread time.Duration) time.Duration {
	if spread <= 0 {
		return d
	}
	return d + rand.N(spread)
}

// retryAfter parses Retry-After as seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now)), true
	}
	return 0, false
}
