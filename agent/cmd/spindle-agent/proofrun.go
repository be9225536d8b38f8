package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spindle-io/spindle/agent/internal/proofrun"
)

// pathList is a repeatable --path flag.
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(v string) error { *p = append(*p, v); return nil }

// proofRunCommand runs one proof run in the foreground: progress on stderr, the report on stdout.
func proofRunCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("proof-run", stderr)
	var paths pathList
	fs.Var(&paths, "path", "directory the proof run may write in (repeat once for a separate log directory)")
	profile := fs.String("profile", "", "profile: "+strings.Join(proofrun.ProfileNames(), ", "))
	size := fs.String("size", "1GiB", "size limit of the proof run's files, e.g. 1GiB")
	duration := fs.Duration("duration", 5*time.Minute, "time limit of the whole run")
	step := fs.Duration("step", proofrun.DefaultStepSeconds*time.Second, "how long each load step is measured per pass")
	latency := fs.Duration("latency-limit", 100*time.Millisecond, "mean response time that marks the saturation point")
	floor := fs.String("floor", "", "free space to leave on the file system (default: max(1GiB, 5 %))")
	budget := fs.String("budget", "", "read cache budget in the A/B run's on passes (default: the data size)")
	loads := fs.String("loads", "", "load steps: 1x1,2x4 (threads x outstanding) or 1,4,8 (pgbench clients)")
	direct := fs.Bool("direct", false, "direct I/O (O_DIRECT), not with --ab")
	ab := fs.Bool("ab", false, "A/B: a warm-up pass, then blocks of passes off, on, on, off with the acceleration features")
	target := fs.Float64("target", proofrun.DefaultTargetHalfWidth, "A/B: add blocks until every step's change is known within ± this many percent (or --duration runs out)")
	oracle := fs.String("oracle", "", "A/B: the memory cgroup directory the workload runs in; the on passes raise its limit by the data size and read the data in from outside it (the ceiling a read cache can reach) instead of running the acceleration features; with --ab only")
	pg := fs.String("pg", "", "pgbench profile: PostgreSQL connection string")
	arms := fs.String("arms", "", "pgbench profile: interleave these arms in one run, e.g. off,cache,oracle (off first, the control; "+
		"cache is the read cache, oracle needs --oracle), one pass each per block in a random order; not with --ab")
	seed := fs.Uint64("seed", 0, "--arms: seed of the arms' order in each block and of the bootstrap (default: from the clock)")
	maxBlocks := fs.Int("max-blocks", 0, "--arms: the most blocks to run (default: as many as fit in --duration)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	req := proofrun.Request{Profile: *profile, Paths: paths, TimeLimitSeconds: duration.Seconds(),
		StepSeconds: step.Seconds(), LatencyLimitSeconds: latency.Seconds(), DirectIO: *direct, AB: *ab,
		TargetHalfWidthPercent: *target}
	var err error
	if req.SizeLimitBytes, err = proofrun.ParseSize(*size); err != nil {
		return fmt.Errorf("%w: --size: %v", errUsage, err)
	}
	if *floor != "" {
		if req.FreeSpaceFloorBytes, err = proofrun.ParseSize(*floor); err != nil {
			return fmt.Errorf("%w: --floor: %v", errUsage, err)
		}
	}
	if *budget != "" {
		if req.ReadCacheBudgetBytes, err = proofrun.ParseSize(*budget); err != nil {
			return fmt.Errorf("%w: --budget: %v", errUsage, err)
		}
	}
	if *loads != "" {
		if req.Loads, err = proofrun.ParseLoads(*loads); err != nil {
			return fmt.Errorf("%w: --loads: %v", errUsage, err)
		}
	}
	if *pg != "" {
		req.Postgres = &proofrun.PostgresTarget{ConnString: *pg}
	}
	if err := req.Validate(); err != nil {
		return err
	}
	if *arms != "" {
		return armsCommand(req, armsFlags{arms: *arms, oracle: *oracle, seed: *seed, maxBlocks: *maxBlocks, json: *asJSON},
			stdout, stderr)
	}
	if *oracle != "" && !req.AB {
		return fmt.Errorf("%w: --oracle compares against the off passes: add --ab", errUsage)
	}
	var accel proofrun.Accelerator
	if *oracle != "" {
		if accel, err = proofrun.NewOracle(*oracle); err != nil {
			return fmt.Errorf("start the oracle for the A/B run: %w", err)
		}
		defer accel.Close()
	} else if req.AB {
		if accel, err = proofrun.NewAccelerator(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))); err != nil {
			return fmt.Errorf("start the acceleration features for the A/B run: %w", err)
		}
		defer accel.Close()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	report, runErr := proofrun.Run(ctx, req, accel, func(p proofrun.Progress) { printProgress(stderr, p) })
	if report != nil && *oracle != "" {
		report.Notes = append(report.Notes, "oracle: the on passes raised the workload's memory cgroup limit by the "+
			"data size and read every data file in from outside the cgroup instead of running the acceleration "+
			"features: the read cache's ceiling, not its figure; prefetched bytes are what the oracle read")
	}
	if report != nil {
		if err := writeReport(stdout, *asJSON, report, printReport); err != nil {
			return err
		}
	}
	return runErr
}

// writeReport writes a run's report as indented JSON, or as the table print draws.
func writeReport[R any](w io.Writer, asJSON bool, report R, print func(io.Writer, R)) error {
	if !asJSON {
		print(w, report)
		return nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

func printProgress(w io.Writer, p proofrun.Progress) {
	switch p.Phase {
	case proofrun.PhaseRunning:
		if p.Step == 0 {
			fmt.Fprintf(w, "[%3.0f%%] %s\n", 100*p.Fraction, p.Message)
			return
		}
		pass := fmt.Sprintf("pass %d/%d (%s)", p.Pass, p.Passes, p.Side)
		if p.WarmUp {
			pass = fmt.Sprintf("warm-up pass (%s)", p.Side)
		} else if p.Block > 0 {
			pass = fmt.Sprintf("block %d, pass %d/%d (%s)", p.Block, p.Pass, p.Passes, p.Side)
		}
		fmt.Fprintf(w, "[%3.0f%%] %s step %d/%d: %s\n", 100*p.Fraction, pass, p.Step, p.Steps, p.StepLabel)
	default:
		fmt.Fprintf(w, "[%3.0f%%] %s: %s\n", 100*p.Fraction, p.Phase, p.Message)
	}
}
