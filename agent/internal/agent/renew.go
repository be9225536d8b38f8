package agent

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/spindle-io/spindle/agent/internal/credential"
	"github.com/spindle-io/spindle/agent/internal/enroll"
)

// Renewal defaults: check hourly; after a failure retry from 5 minutes, doubling to the check
// period, each wait jittered so a fleet that lost the gateway does not come back in step.
const (
	defaultRenewCheck    = time.Hour
	defaultRenewRetryMin = 5 * time.Minute
	// renewWarnLeft: when renewal keeps failing and less than this is left, every failure is
	// logged as a warning that says what to do before the agent stops being accepted.
	renewWarnLeft = 7 * 24 * time.Hour
)

// RenewSettings tune background credential renewal (tests shorten them).
type RenewSettings struct {
	Check    time.Duration // how often to check whether renewal is due; default 1 h
	RetryMin time.Duration // first retry after a failed renewal; default 5 min, doubling to Check
	Client   *http.Client  // default: 30 s timeout
	// OnAttempt, when set, is called after every renewal attempt with its result (tests wait on it).
	OnAttempt func(err error)
}

// renewer keeps the running agent's credential fresh: it renews when a third of the lifetime is
// left (credential.RenewDue), saves the new one to agent.yaml (atomically, by enroll.Renew) and
// then puts it in the holder every authenticating path reads per request.
type renewer struct {
	holder     *credential.Holder
	configPath string
	log        *slog.Logger
	s          RenewSettings
}

func newRenewer(holder *credential.Holder, configPath string, log *slog.Logger, s RenewSettings) *renewer {
	if s.Check <= 0 {
		s.Check = defaultRenewCheck
	}
	if s.RetryMin <= 0 {
		s.RetryMin = defaultRenewRetryMin
	}
	if s.RetryMin > s.Check {
		s.RetryMin = s.Check
	}
	if s.Client == nil {
		s.Client = &http.Client{Timeout: 30 * time.Second}
	}
	return &renewer{holder: holder, configPath: configPath, log: log, s: s}
}

// Run checks at once, then every Check (or sooner after a failure) until ctx ends.
func (r *renewer) Run(ctx context.Context) {
	failures := 0
	for {
		wait := r.s.Check
		if r.due(time.Now()) {
			if err := r.renewOnce(ctx); err != nil {
				failures++
				wait = r.retryWait(failures)
				r.reportFailure(err, failures, wait)
			} else {
				failures = 0
			}
		}
		timer := time.NewTimer(jitter(wait))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

func (r *renewer) due(now time.Time) bool {
	issued, expires := r.holder.Times()
	return credential.RenewDue(now, issued, expires)
}

func (r *renewer) renewOnce(ctx context.Context) error {
	out, err := enroll.Renew(ctx, r.s.Client, r.configPath)
	if err == nil {
		// Saved to agent.yaml first (enroll.Renew), then used: the old one is already refused.
		r.holder.Set(out.Credential, out.IssuedAt, out.ExpiresAt)
		next := credential.RenewAt(out.IssuedAt, out.ExpiresAt)
		r.log.Info("agent credential renewed", "expires_at", out.ExpiresAt, "next_renewal", next)
	}
	if r.s.OnAttempt != nil {
		r.s.OnAttempt(err)
	}
	return err
}

// retryWait doubles from RetryMin up to Check: never hammering the gateway, never giving up.
func (r *renewer) retryWait(failures int) time.Duration {
	wait := r.s.RetryMin
	for i := 1; i < failures && wait < r.s.Check; i++ {
		wait *= 2
	}
	return min(wait, r.s.Check)
}

func (r *renewer) reportFailure(err error, failures int, wait time.Duration) {
	_, expires := r.holder.Times()
	attrs := []any{"error", err, "consecutive_failures", failures, "retry_in", wait.Round(time.Second)}
	if !expires.IsZero() {
		attrs = append(attrs, "credential_expires_at", expires)
	}
	if expires.IsZero() || time.Until(expires) > renewWarnLeft {
		r.log.Info("could not renew the agent credential; the current one stays in use and renewal is retried", attrs...)
		return
	}
	r.log.Warn("the agent credential expires soon and could not be renewed: check that the agent reaches the gateway "+
		"(POST /v1/renew) and that the server was not revoked; once it has expired, an admin must allow re-enrolment "+
		"on the server's page in the console and the agent be enrolled again (spindle-agent enroll --token …)", attrs...)
}

// jitter spreads a wait over [0.8, 1.2) of itself.
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}
