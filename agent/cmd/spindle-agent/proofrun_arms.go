package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spindle-io/spindle/agent/internal/proofrun"
)

// armsFlags are proof-run's flags for an interleaved run of arms.
type armsFlags struct {
	arms, oracle string
	seed         uint64
	maxBlocks    int
	json         bool
}

// armsCommand runs `proof-run --arms`: the pgbench profile with the named arms interleaved in
// random order within every block (docs/benchmarks/read-cache.md, "Three arms in one run").
func armsCommand(req proofrun.Request, f armsFlags, stdout, stderr io.Writer) error {
	if req.AB {
		return fmt.Errorf("%w: --arms is its own comparison: leave out --ab", errUsage)
	}
	if req.Profile != "pgbench" {
		return fmt.Errorf("%w: --arms is for the pgbench profile", errUsage)
	}
	names := strings.Split(f.arms, ",")
	if names[0] != "off" {
		return fmt.Errorf("%w: --arms starts with off, the control the others are compared against", errUsage)
	}
	arms := []proofrun.Arm{{Name: "off"}}
	for _, name := range names[1:] {
		var accel proofrun.Accelerator
		var err error
		switch name {
		case "cache":
			accel, err = proofrun.NewAccelerator(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
		case "oracle":
			if f.oracle == "" {
				return fmt.Errorf("%w: the oracle arm needs --oracle, the memory cgroup directory PostgreSQL runs in", errUsage)
			}
			accel, err = proofrun.NewOracle(f.oracle)
		default:
			return fmt.Errorf("%w: --arms: unknown arm %q (off, cache, oracle)", errUsage, name)
		}
		if err != nil {
			return fmt.Errorf("start the %s arm: %w", name, err)
		}
		defer accel.Close()
		arms = append(arms, proofrun.Arm{Name: name, Accel: accel})
	}
	seed := f.seed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	report, runErr := proofrun.RunArms(ctx, req, arms, proofrun.ArmsOptions{Seed: seed, MaxBlocks: f.maxBlocks},
		func(line string) { fmt.Fprintln(stderr, line) })
	if report != nil {
		if err := writeReport(stdout, f.json, report, printArms); err != nil {
			return err
		}
	}
	return runErr
}

// printArms prints the effects as a table: a figure only when its bootstrap interval excludes 0.
func printArms(w io.Writer, r *proofrun.ArmsReport) {
	fmt.Fprintf(w, "%d blocks of %s, random order in each (seed %d); %s\n", len(r.Blocks), strings.Join(r.Arms, ", "), r.Seed, r.Stop)
	if r.Stopped != "" {
		fmt.Fprintf(w, "stopped: %s (effects from the whole blocks before it)\n", r.Stopped)
	}
	if r.LoadAverage.Mean != nil {
		fmt.Fprintf(w, "load average at the passes' start (descriptive): min %.2f, mean %.2f, max %.2f\n",
			*r.LoadAverage.Min, *r.LoadAverage.Mean, *r.LoadAverage.Max)
	}
	fmt.Fprintln(w, "| arm | against | clients | TPS change (95 % bootstrap; t) | mean latency change (95 % bootstrap; t) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, e := range r.Effects {
		clients := "all"
		if e.Clients > 0 {
			clients = fmt.Sprint(e.Clients)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", e.Arm, e.Against, clients, formatPaired(e.Throughput), formatPaired(e.LatencyMean))
	}
}

func formatPaired(c proofrun.PairedChange) string {
	if c.Status == proofrun.NotMeasured {
		return "not measured: " + c.Reason
	}
	pct := func(v *float64) string {
		if v == nil || math.IsNaN(*v) {
			return "?"
		}
		return fmt.Sprintf("%+.0f", *v)
	}
	interval := fmt.Sprintf("%s to %s %%; t %s to %s %%", pct(c.BootstrapLowPercent), pct(c.BootstrapHighPercent),
		pct(c.StudentLowPercent), pct(c.StudentHighPercent))
	if c.Status == proofrun.NoMeasurableDifference {
		return fmt.Sprintf("no measurable difference, %s %% (%s)", pct(c.Percent), interval)
	}
	return fmt.Sprintf("%s %% (%s)", pct(c.Percent), interval)
}
