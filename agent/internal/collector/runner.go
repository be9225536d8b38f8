package collector

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

// State is how a collector fared in one tick.
type State string

const (
	StateOK          State = "ok"
	StateError       State = "error"
	StateUnsupported State = "unsupported"
)

// Result is one collector's outcome for one tick.
type Result struct {
	Name     string
	State    State
	Duration time.Duration
	Err      error // nil when State is ok
}

// Runner runs a fixed set of collectors concurrently.
type Runner struct {
	collectors []Named
	logger     *slog.Logger
	warned     sync.Map // collector name -> struct{}: unsupported is logged once
}

// NewRunner returns a runner for the given collectors.
func NewRunner(collectors []Named, logger *slog.Logger) *Runner {
	return &Runner{collectors: collectors, logger: logger}
}

// Collect runs every collector once, concurrently, and waits for all of them. Each reports
// its own duration and success into the sink, so one slow or failing collector is visible
// without hiding the others' data.
func (r *Runner) Collect(ctx context.Context, sink Sink) []Result {
	results := make([]Result, len(r.collectors))
	var wg sync.WaitGroup
	for i, c := range r.collectors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.collectOne(ctx, c, sink)
		}()
	}
	wg.Wait()
	return results
}

func (r *Runner) collectOne(ctx context.Context, c Named, sink Sink) Result {
	start := time.Now()
	err := c.Collect(ctx, sink)
	res := Result{Name: c.Name, State: StateOK, Duration: time.Since(start)}

	switch {
	case err == nil || errors.Is(err, ErrNoData):
		if err != nil {
			r.logger.Debug("collector had no data", "collector", c.Name, "error", err)
		}
	case errors.Is(err, ErrUnsupported):
		res.State, res.Err = StateUnsupported, err
		if _, seen := r.warned.LoadOrStore(c.Name, struct{}{}); !seen {
			r.logger.Info("collector unsupported here; it stays off", "collector", c.Name, "reason", err)
		}
	default:
		res.State, res.Err = StateError, err
		r.logger.Warn("collector failed", "collector", c.Name, "error", err)
	}

	attr := attribute.String(catalogue.AttrCollector, c.Name)
	sink.SetFloat(catalogue.CollectorDuration, res.Duration.Seconds(), attr)
	success := int64(0)
	if res.State == StateOK {
		success = 1
	}
	sink.SetInt(catalogue.CollectorSuccess, success, attr)
	return res
}

// Close closes every collector and joins their errors.
func (r *Runner) Close() error {
	var errs []error
	for _, c := range r.collectors {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
