package bench

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Run validates req, checks the machine (paths, free space), runs the profile's steps in one
// pass, or for A/B a warm-up pass and blocks of off, on, on, off (accel switching the features)
// until the intervals are within the target or the time limit comes, and returns the report.
// progress, when not nil, is called from Run's goroutine. accel may be nil without A/B.
//
// When ctx ends or the time limit passes mid-run, Run stops at once, removes its files and
// returns the partial report (Complete false, Stopped saying why, no change stated) together
// with the error. Refusals wrap ErrRefused and bad requests ErrInvalid; nothing is written in
// either case.
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
	}
	report.Complete = err == nil
	r.finishReport(report)
	if err != nil {
		return report, err
	}
	progress(Progress{Phase: PhaseDone, Passes: len(report.PassOrder), Fraction: 1})
	return report, nil
}

// runner holds one run's state.
type runner struct {
	req      Request
	profile  Profile
	accel    Accelerator
	progress func(Progress)
	started  time.Time
	planned  float64 // seconds, for Fraction without A/B
	// measures[i] are step i's measurements, one per pass that reached it.
	measures [][]measure
	// logExtents are the log file's extents per pass (profiles with a log writer).
	logExtents []passExtents
	withLog    bool
	onStats    AcceleratorStats // the features' state at the end of the last "on" pass
	// The pass under way, for progress.
	passes int // planned so far
	block  int
	widest *float64
}

func (r *runner) newReport() *Report {
	rep := &Report{
		Profile: r.profile.Name, Description: r.profile.Description, StartedAt: r.started,
		AB: r.req.AB, DirectIO: r.req.DirectIO, Throughput: "iops", PassOrder: []Side{},
		LatencyLimitSeconds: r.req.LatencyLimitSeconds, StepSeconds: r.req.StepSeconds,
		TimeLimitSeconds: r.req.TimeLimitSeconds,
	}
	if r.profile.Kind == KindPgbench {
		rep.Throughput = "tps"
	}
	if r.req.AB {
		rep.Alternation = &Alternation{TargetHalfWidthPercent: r.req.TargetHalfWidthPercent,
			ConfidencePercent: 100 * familyConfidence, Method: crossoverMethod}
	}
	r.planned = r.req.planSeconds(r.profile)
	for _, mix := range r.profile.workloads() {
		for _, load := range r.req.loads(r.profile) {
			rep.Steps = append(rep.Steps, Step{Index: len(rep.Steps) + 1, Workload: mix.Name, Load: load,
				Label: mix.Name + ", " + load.String()})
		}
	}
	if rep.Alternation != nil {
		rep.Alternation.IntervalsInFamily = intervalsInFamily(len(rep.Steps))
	}
	r.measures = make([][]measure, len(rep.Steps))
	return rep
}

// finishReport fills what depends on all passes: the sides' means, per-pass values, saturation,
// read placement and, for A/B, the changes with their intervals (none for an incomplete run).
func (r *runner) finishReport(rep *Report) {
	fillSteps(rep, r.measures, r.profile.Kind)
	if r.withLog {
		rep.WritePath = writePath(r.logExtents, rep.Complete)
	}
	if !rep.AB {
		return
	}
	widest := compare(rep, r.measures, rep.Complete)
	classified := false
	for _, p := range []*ReadPlacement{rep.Reads.Off, rep.Reads.On} {
		classified = classified || (p != nil && p.Measured)
	}
	rep.Reads.Caused = causedReads(rep.Reads.Passes, classified, rep.Reads.Off.Basis, rep.Complete)
	a := rep.Alternation
	a.WidestHalfWidthPercent = widest
	if !rep.Complete {
		a.StopReason, a.Stop = "incomplete", rep.Stopped
	}
}

// report emits progress, with Fraction by elapsed time against the time limit for A/B (the run
// may use all of it) or the plan otherwise, capped below 1.
func (r *runner) report(p Progress) {
	p.Passes = r.passes
	planned := r.planned
	if r.req.AB {
		planned = r.req.TimeLimitSeconds
		p.Block = r.block
		p.TargetHalfWidthPercent = r.req.TargetHalfWidthPercent
		p.WidestHalfWidthPercent = r.widest
		p.TimeLimitSeconds = r.req.TimeLimitSeconds
	}
	if planned > 0 {
		p.Fraction = time.Since(r.started).Seconds() / planned
	}
	if p.Fraction > 0.99 {
		p.Fraction = 0.99
	}
	r.progress(p)
}
