package proofrun

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// Arm is one arm of an interleaved run: a name and the accelerator its passes switch on; nil
// runs with every accelerator off (the control).
type Arm struct {
	Name  string
	Accel Accelerator
}

// ArmsOptions shape an interleaved run. The first arm is the control, and the warm-up pass
// runs with it. Blocks stop at MaxBlocks or when the next would not fit in the request's
// time limit (judged by the longest block so far).
type ArmsOptions struct {
	Seed      uint64
	MaxBlocks int
}

// RunArms runs the pgbench profile in blocks of one pass per arm, the arms' order drawn at
// random (from Seed) in every block, so that what drifts over the run weighs on every arm
// alike, and states every arm's effect against the control with an interval over the blocks.
// Each pass drops the database's pages from the page cache, turns every other arm's
// accelerator off and its own on, then runs every load step. progress gets one line per pass.
// When ctx ends or the time limit passes mid-block, the block is discarded and the report
// (Stopped set) rests on the whole blocks before it, returned together with the error.
func RunArms(ctx context.Context, req Request, arms []Arm, opts ArmsOptions, progress func(string)) (*ArmsReport, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if err := platformSupported(); err != nil {
		return nil, err
	}
	req = req.withDefaults()
	if req.Profile != "pgbench" {
		return nil, invalid("an interleaved run of arms is for the pgbench profile, not %q", req.Profile)
	}
	if err := checkArms(arms); err != nil {
		return nil, err
	}
	if opts.MaxBlocks <= 0 {
		opts.MaxBlocks = MaxBlocks
	}
	if progress == nil {
		progress = func(string) {}
	}
	ctx, cancel := context.WithTimeoutCause(ctx, req.TimeLimit(),
		fmt.Errorf("the time limit of %.0f s was reached", req.TimeLimitSeconds))
	defer cancel()

	r := &runner{req: req, progress: func(p Progress) {
		if p.Message != "" {
			progress(fmt.Sprintf("%s: %s", p.Phase, p.Message))
		}
	}, started: time.Now()}
	rep := &ArmsReport{Profile: req.Profile, StartedAt: r.started, Control: arms[0].Name, Seed: opts.Seed,
		StepSeconds: req.StepSeconds, Blocks: []ArmBlock{}, Method: armsMethod,
		Accelerators: map[string]AcceleratorStats{}, Notes: []string{
			"PostgreSQL's shared buffers are not emptied between passes (that needs a restart); the database's " +
				"files are dropped from the page cache at the start of every pass, and the warm-up pass fills the " +
				"shared buffers before the first block"}}
	for _, a := range arms {
		rep.Arms = append(rep.Arms, a.Name)
	}
	profile, _ := profileByName(req.Profile)
	for _, l := range req.loads(profile) {
		rep.Clients = append(rep.Clients, l.Clients)
	}
	err := r.runArms(ctx, rep, arms, opts)
	rep.EndedAt = time.Now()
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
			if errors.Is(cause, context.Canceled) {
				cause = errors.New("cancelled")
			}
			err = fmt.Errorf("interleaved run stopped: %w", cause)
		}
		if errors.Is(err, ErrRefused) || errors.Is(err, ErrInvalid) || errors.Is(err, ErrUnavailable) {
			return nil, err
		}
		rep.Stopped = err.Error()
	}
	rep.Effects = armEffects(rep)
	rep.LoadAverage = summariseLoad(rep)
	for _, a := range arms {
		if a.Accel != nil {
			rep.Accelerators[a.Name] = a.Accel.Stats()
		}
	}
	return rep, err
}

func checkArms(arms []Arm) error {
	if len(arms) < 2 {
		return invalid("an interleaved run needs at least two arms, the control first")
	}
	if arms[0].Accel != nil {
		return invalid("the first arm, %q, is the control: it runs with every accelerator off", arms[0].Name)
	}
	seen := map[string]bool{}
	for i, a := range arms {
		if a.Name == "" || seen[a.Name] {
			return invalid("arm names must be given and distinct: %q", a.Name)
		}
		seen[a.Name] = true
		if i > 0 && a.Accel == nil {
			return invalid("arm %q has no accelerator: only the first arm is the control", a.Name)
		}
	}
	return nil
}

func (r *runner) runArms(ctx context.Context, rep *ArmsReport, arms []Arm, opts ArmsOptions) (err error) {
	s, err := r.preparePgbench(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if dropErr := r.dropPgbench(ctx, s); dropErr != nil && err == nil {
			err = dropErr
		}
	}()
	rep.Device, rep.DataBytes = s.device, s.size
	defer func() {
		for _, a := range arms {
			if a.Accel != nil {
				err = errors.Join(err, a.Accel.Disable(context.WithoutCancel(ctx)))
			}
		}
	}()
	logDir, err := os.MkdirTemp("", "spindle-pgbench-log-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(logDir)
	pass := func(arm Arm, label string) (ArmPass, error) {
		targets, err := r.pgbenchPassTargets(s.db.dir)
		if err != nil {
			return ArmPass{}, err
		}
		for _, other := range arms {
			if other.Accel != nil && other.Name != arm.Name {
				if err := other.Accel.Disable(ctx); err != nil {
					return ArmPass{}, fmt.Errorf("switch %s off: %w", other.Name, err)
				}
			}
		}
		if arm.Accel != nil {
			if err := arm.Accel.Enable(ctx, targets); err != nil {
				return ArmPass{}, fmt.Errorf("switch %s on: %w", arm.Name, err)
			}
		}
		p := ArmPass{Arm: arm.Name, StartedAt: time.Now(), LoadAverage1m: loadAverage1m(), Steps: []ArmStep{}}
		r.progress(Progress{Phase: PhaseRunning, Message: fmt.Sprintf("%s, %s (load average %s)", label, arm.Name, formatLoad(p.LoadAverage1m))})
		for _, clients := range rep.Clients {
			m, err := r.pgbenchStep(ctx, s.binary, s.db, clients, int(math.Ceil(r.req.StepSeconds)), logDir)
			if err != nil {
				return ArmPass{}, fmt.Errorf("%s pass, %d clients: %w", arm.Name, clients, err)
			}
			p.Steps = append(p.Steps, ArmStep{Clients: clients, TPS: m.throughput(), LatencyMeanSeconds: m.latency.mean(),
				Transactions: m.operations})
		}
		return p, nil
	}
	warm, err := pass(arms[0], "warm-up pass")
	if err != nil {
		return err
	}
	rep.WarmUp = &warm
	rng := rand.New(rand.NewPCG(opts.Seed, 0xa4a5))
	var longest time.Duration
	for block := 1; ; block++ {
		began := time.Now()
		b := ArmBlock{Index: block}
		for _, i := range rng.Perm(len(arms)) {
			p, err := pass(arms[i], fmt.Sprintf("block %d", block))
			if err != nil {
				return err
			}
			b.Order = append(b.Order, arms[i].Name)
			b.Passes = append(b.Passes, p)
		}
		rep.Blocks = append(rep.Blocks, b)
		longest = max(longest, time.Since(began))
		next := longest + longest/4
		switch {
		case block >= opts.MaxBlocks:
			rep.Stop = fmt.Sprintf("the most blocks asked for (%d) ran", opts.MaxBlocks)
			return nil
		case time.Since(r.started)+next+time.Minute > r.req.TimeLimit():
			rep.Stop = fmt.Sprintf("another block (about %.0f s) would not fit in the time limit of %.0f s after %d blocks",
				next.Seconds(), r.req.TimeLimitSeconds, block)
			return nil
		}
	}
}

// loadAverage1m reads the 1-minute load average (nil where there is no /proc/loadavg).
func loadAverage1m() *float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return nil
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return nil
	}
	return &v
}

func formatLoad(v *float64) string {
	if v == nil {
		return "not measured"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}
