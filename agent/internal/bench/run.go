package bench

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Run validates req, checks the machine (paths, free space), runs the profile's steps in one
// pass (or four for A/B: off, on, on, off, with accel switching the features), and returns the
// report. progress, when not nil, is called from Run's goroutine. accel may be nil without A/B.
//
// When ctx ends or the time limit passes mid-run, Run stops at once, removes its files and
// returns the partial report (Complete false, Stopped saying why) together with the error.
// Refusals wrap ErrRefused and bad requests ErrInvalid; nothing is written in either case.
func Run(ctx context.Context, req Request, accel Accelerator, progress func(Progress)) (*Report, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if err := platformSupported(); err != nil {
		return nil, err
	}
	req = req.withDefaults()
	profile, _ := profileByName(req.Profile)
	if req.AB && accel == nil {
		return nil, invalid("an A/B run needs the acceleration features, and none were given")
	}
	if progress == nil {
		progress = func(Progress) {}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, req.TimeLimit(),
		fmt.Errorf("the time limit of %.0f s was reached", req.TimeLimitSeconds))
	defer cancel()

	r := &runner{req: req, profile: profile, accel: accel, progress: progress, started: time.Now()}
	report := r.newReport()
	var err error
	if profile.Kind == KindPgbench {
		err = r.runPgbench(ctx, report)
	} else {
		err = r.runGenerator(ctx, report)
	}
	report.EndedAt = time.Now()
	fillSteps(report, r.measures, profile.Kind)
	summarise(report)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			if errors.Is(cause, context.Canceled) {
				cause = errors.New("cancelled")
			}
			err = fmt.Errorf("benchmark stopped: %w", cause)
		}
		report.Stopped = err.Error()
		if errors.Is(err, ErrRefused) || errors.Is(err, ErrInvalid) {
			return nil, err
		}
		return report, err
	}
	report.Complete = true
	progress(Progress{Phase: PhaseDone, Passes: req.passes(), Fraction: 1})
	return report, nil
}

// runner holds one run's state.
type runner struct {
	req      Request
	profile  Profile
	accel    Accelerator
	progress func(Progress)
	started  time.Time
	planned  float64 // seconds, for Fraction
	// measures[i] are step i's measurements, one per pass that reached it.
	measures [][]measure
	onStats  AcceleratorStats // the features' state at the end of the last "on" pass
}

func (r *runner) newReport() *Report {
	rep := &Report{
		Profile: r.profile.Name, Description: r.profile.Description, StartedAt: r.started,
		AB: r.req.AB, DirectIO: r.req.DirectIO, Throughput: "iops",
		LatencyLimitSeconds: r.req.LatencyLimitSeconds, StepSeconds: r.req.StepSeconds,
	}
	if r.profile.Kind == KindPgbench {
		rep.Throughput = "tps"
	}
	rep.PassOrder = passOrder(r.req.AB)
	r.planned = r.req.planSeconds(r.profile)
	for _, mix := range r.profile.workloads() {
		for _, load := range r.req.loads(r.profile) {
			rep.Steps = append(rep.Steps, Step{Index: len(rep.Steps) + 1, Workload: mix.Name, Load: load,
				Label: mix.Name + ", " + load.String()})
		}
	}
	r.measures = make([][]measure, len(rep.Steps))
	return rep
}

// passOrder is off, on, on, off for A/B (so a linear drift weighs both sides equally).
func passOrder(ab bool) []Side {
	if ab {
		return []Side{Off, On, On, Off}
	}
	return []Side{Off}
}

// report emits progress, with Fraction by elapsed time against the plan (capped below 1).
func (r *runner) report(p Progress) {
	p.Passes = r.req.passes()
	if r.planned > 0 {
		p.Fraction = time.Since(r.started).Seconds() / r.planned
	}
	if p.Fraction > 0.99 {
		p.Fraction = 0.99
	}
	r.progress(p)
}
