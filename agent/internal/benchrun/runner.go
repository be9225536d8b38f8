// Package benchrun runs the A/B proof runs the console requests for this server: it long-polls
// the gateway for a run (or a cancel of the one in progress), runs it with the bench package in
// the background, one at a time, posts progress (which also keeps the run alive on the gateway)
// and finally the report or the reason it stopped. docs/agent-protocol.md, "Proof runs".
package benchrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bench"
)

// Settings configure the runner. Gateway, Credential and Logger are required.
type Settings struct {
	Gateway    string
	Credential string
	// CredentialFunc, when set, is read for every request instead of Credential (renewal).
	CredentialFunc func() string
	UserAgent      string
	Logger         *slog.Logger
	// AllowedPaths (agent.yaml bench.paths) are the directories remote runs may write in; a run
	// naming another directory is refused, and with none every run is refused.
	AllowedPaths []string
	// Local completes every request with what only agent.yaml decides: the free-space floor and
	// the pgbench target (request.go).
	Local Local
	// Run runs one request; default bench.Run.
	Run func(ctx context.Context, req bench.Request, accel bench.Accelerator, progress func(bench.Progress)) (*bench.Report, error)
	// NewAccelerator makes the features an A/B run switches; default bench.NewAccelerator.
	NewAccelerator func(*slog.Logger) (bench.Accelerator, error)
	// PollWaitSeconds is how long one long poll may wait at the gateway. Default 25.
	PollWaitSeconds int
	// ProgressEvery is how often progress is posted while running (the gateway fails a run
	// silent for 90 s). Default 2 s.
	ProgressEvery time.Duration
	// RetryAfter is the pause after a failed poll. Default 5 s.
	RetryAfter time.Duration
	// MinEmptyPoll is the least time between polls that brought nothing, so a gateway or proxy
	// that answers the long poll at once does not make the agent spin. Default 1 s.
	MinEmptyPoll time.Duration
}

// Runner is the agent's side of proof runs.
type Runner struct {
	settings Settings
	client   *client

	mu       sync.Mutex
	active   *activeRun      // nil when idle
	stopping context.Context // Run's context: once it ends, outcomes get one short try
}

type activeRun struct {
	id     string
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// errCancelled is the cause of a run the user cancelled.
var errCancelled = errors.New("cancelled from the console")

// New prepares a runner; Run polls until its context ends.
func New(settings Settings) (*Runner, error) {
	if settings.CredentialFunc == nil {
		fixed := settings.Credential
		settings.CredentialFunc = func() string { return fixed }
	}
	if settings.Gateway == "" || settings.CredentialFunc() == "" || settings.Logger == nil {
		return nil, errors.New("benchrun: Gateway, Credential (or CredentialFunc) and Logger are required")
	}
	if settings.Run == nil {
		settings.Run = bench.Run
	}
	if settings.NewAccelerator == nil {
		settings.NewAccelerator = bench.NewAccelerator
	}
	if settings.PollWaitSeconds <= 0 {
		settings.PollWaitSeconds = 25
	}
	if settings.ProgressEvery <= 0 {
		settings.ProgressEvery = 2 * time.Second
	}
	if settings.RetryAfter <= 0 {
		settings.RetryAfter = 5 * time.Second
	}
	if settings.MinEmptyPoll <= 0 {
		settings.MinEmptyPoll = time.Second
	}
	if settings.UserAgent == "" {
		settings.UserAgent = "spindle-agent"
	}
	c := &client{http: &http.Client{Timeout: time.Duration(settings.PollWaitSeconds+15) * time.Second},
		gateway: settings.Gateway, credential: settings.CredentialFunc, userAgent: settings.UserAgent}
	return &Runner{settings: settings, client: c}, nil
}

// Run polls the gateway until ctx ends; a run in progress then stops, its files are removed and
// the gateway is told it failed because the agent stopped.
func (r *Runner) Run(ctx context.Context) {
	r.mu.Lock()
	r.stopping = ctx
	r.mu.Unlock()
	profilesSent := false
	for ctx.Err() == nil {
		if !profilesSent {
			if err := r.client.sendProfiles(ctx, bench.Profiles(), r.settings.AllowedPaths); err != nil {
				r.settings.Logger.Warn("could not tell the gateway the benchmark profiles; retrying", "error", err)
				sleep(ctx, r.settings.RetryAfter)
				continue
			}
			profilesSent = true
		}
		polled := time.Now()
		cmd, err := r.client.next(ctx, r.runningID(), r.settings.PollWaitSeconds)
		if err == nil && cmd.Cancel == "" && cmd.Start == nil {
			sleep(ctx, r.settings.MinEmptyPoll-time.Since(polled))
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				r.settings.Logger.Debug("proof-run poll failed; retrying", "error", err)
				sleep(ctx, r.settings.RetryAfter)
			}
			continue
		}
		if cmd.Cancel != "" {
			r.cancel(cmd.Cancel)
		}
		if cmd.Start != nil {
			r.start(ctx, cmd.Start.RunID, cmd.Start.Profile, cmd.Start.Parameters)
		}
	}
	r.mu.Lock()
	active := r.active
	r.mu.Unlock()
	if active != nil {
		<-active.done
	}
}

func (r *Runner) runningID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == nil {
		return ""
	}
	return r.active.id
}

func (r *Runner) cancel(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active != nil && r.active.id == id {
		r.settings.Logger.Info("cancelling the proof run", "run_id", id)
		r.active.cancel(errCancelled)
	}
}

// start begins a run in the background; a second run while one is in progress is refused.
func (r *Runner) start(ctx context.Context, id, profile string, parameters json.RawMessage) {
	r.mu.Lock()
	if r.active != nil && r.active.id == id {
		// The same run handed out again (a redelivery): it is not a second run, and failing it
		// would overwrite the outcome it is about to post.
		r.mu.Unlock()
		r.settings.Logger.Debug("the proof run in progress was handed out again", "run_id", id)
		return
	}
	if r.active != nil {
		busy := r.active.id
		r.mu.Unlock()
		r.settings.Logger.Warn("refused a second proof run", "run_id", id, "running", busy)
		r.finish(id, "failed", nil, fmt.Sprintf("the agent is already running proof run %s; one runs at a time", busy))
		return
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	active := &activeRun{id: id, cancel: cancel, done: make(chan struct{})}
	r.active = active
	r.mu.Unlock()

	go func() {
		defer close(active.done)
		result := r.execute(runCtx, id, profile, parameters)
		cancel(nil)
		// Still "running" (the polls name this run) until the outcome is posted: a poll naming no
		// run while the gateway still has this one running or cancelling would make the gateway
		// fail it as lost, and the outcome would come too late. Polls naming a run are never
		// handed a new one, so the next run waits for this one's outcome.
		if result.post {
			r.finish(id, result.status, result.report, result.message)
		}
		r.mu.Lock()
		r.active = nil
		r.mu.Unlock()
	}()
}

// outcome is how a run ended; post is false when the gateway must not be told (it dropped the run).
type outcome struct {
	post    bool
	status  string
	report  *bench.Report
	message string
}

func failed(message string) outcome { return outcome{post: true, status: "failed", message: message} }

// execute runs one request and reports its outcome.
func (r *Runner) execute(ctx context.Context, id, profile string, parameters json.RawMessage) outcome {
	log := r.settings.Logger.With("run_id", id, "profile", profile)
	req, err := decodeRequest(profile, parameters, r.settings.Local)
	if err != nil {
		return failed(err.Error())
	}
	if err := checkAllowed(req.Paths, r.settings.AllowedPaths); err != nil {
		log.Warn("refused a proof run", "error", err)
		return failed(err.Error())
	}
	var accel bench.Accelerator
	if req.AB {
		accel, err = r.settings.NewAccelerator(log)
		if err != nil {
			return failed("the acceleration features could not start for the A/B run: " + err.Error())
		}
		defer accel.Close()
	}
	log.Info("proof run starting", "paths", req.Paths, "size_limit_bytes", req.SizeLimitBytes, "time_limit_seconds", req.TimeLimitSeconds)

	reporter := newProgressReporter()
	reportDone := make(chan struct{})
	reportCtx, stopReporting := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer close(reportDone)
		r.reportProgress(reportCtx, id, reporter, log)
	}()
	report, runErr := r.settings.Run(ctx, req, accel, reporter.set)
	stopReporting()
	<-reportDone

	cause := context.Cause(ctx)
	switch {
	case runErr == nil:
		log.Info("proof run succeeded")
		return outcome{post: true, status: "succeeded", report: report}
	case errors.Is(cause, errCancelled):
		log.Info("proof run cancelled")
		// the passes that finished are kept for the console; it states no change for them
		return outcome{post: true, status: "cancelled", report: report}
	case errors.Is(cause, errRunGone):
		log.Info("proof run stopped: the gateway no longer has it")
		return outcome{}
	case cause != nil:
		out := failed("the agent stopped during the run (it was shut down or restarted); its files were removed")
		out.report = report
		return out
	default:
		log.Warn("proof run failed", "error", runErr)
		out := failed(runErr.Error())
		out.report = report // nil when refused before anything ran
		return out
	}
}

// reportProgress posts the newest progress every ProgressEvery (and at once on a change of
// phase) until stopped, cancelling the run when the gateway says the user asked to.
func (r *Runner) reportProgress(ctx context.Context, id string, reporter *progressReporter, log *slog.Logger) {
	ticker := time.NewTicker(r.settings.ProgressEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-reporter.changed:
		}
		postCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		cancelRun, err := r.client.progress(postCtx, id, reporter.get())
		cancel()
		switch {
		case errors.Is(err, errRunGone):
			r.cancelActive(id, errRunGone)
		case err != nil:
			log.Debug("could not post proof-run progress", "error", err)
		case cancelRun:
			r.cancelActive(id, errCancelled)
		}
	}
}

func (r *Runner) cancelActive(id string, cause error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active != nil && r.active.id == id {
		r.active.cancel(cause)
	}
}

// finish posts the outcome, retrying for a minute while the gateway is unreachable (5 s when
// the agent is stopping; the gateway then fails the run as silent).
func (r *Runner) finish(id, status string, report *bench.Report, message string) {
	limit := time.Minute
	r.mu.Lock()
	if r.stopping != nil && r.stopping.Err() != nil {
		limit = 5 * time.Second
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for {
		err := r.client.finish(ctx, id, status, report, message)
		if err == nil || errors.Is(err, errRunGone) {
			return
		}
		r.settings.Logger.Warn("could not post the proof run's outcome; retrying", "run_id", id, "error", err)
		sleep(ctx, 2*time.Second)
		if ctx.Err() != nil {
			return
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
