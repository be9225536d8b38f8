package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spindle-io/spindle/agent/internal/agent"
	"github.com/spindle-io/spindle/agent/internal/config"
)

func runCommand(args []string, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	configPath := fs.String("config", config.DefaultPath, "path of agent.yaml")
	asService := fs.Bool("service", false, "run under the Windows service control manager (the service `spindle-agent install` registers passes it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*configPath)
	if err != nil {
		return err
	}
	collectOften()
	if *asService {
		return runService(cfg, *configPath)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel(cfg.LogLevel)}))

	// SIGINT/SIGTERM end the loop; Run then spools the current interval before returning.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.RequireEnrolled(*configPath) != nil && cfg.EnrolmentTokenFile != "" {
		if cfg, err = waitForEnrolment(ctx, *configPath, cfg, logger); err != nil {
			return nil // stopped while waiting
		}
	}
	return agent.Run(ctx, cfg, *configPath, agent.Options{Version: version, Logger: logger})
}

func logLevel(name string) slog.Level {
	var level slog.Level
	if err := level.UnmarshalText([]byte(name)); err != nil {
		return slog.LevelInfo
	}
	return level
}

// agentGCPercent is the agent's GOGC unless the environment sets GOGC or GOMEMLIMIT. Its live
// heap is a few MiB and it allocates about once per interval, so Go's default (collect when the
// heap has doubled) let the heap sit at twice its live size between ticks, the largest part of
// its private memory (docs/benchmarks.md, "One program per block hook, and agent memory"); a
// quarter costs a few more milliseconds of collection per interval.
const agentGCPercent = 25

func collectOften() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(agentGCPercent)
	}
}
