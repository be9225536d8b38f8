package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/signal"
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
	if *asService {
		return runService(cfg, *configPath)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel(cfg.LogLevel)}))

	// SIGINT/SIGTERM end the loop; Run then spools the current interval before returning.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return agent.Run(ctx, cfg, *configPath, agent.Options{Version: version, Logger: logger})
}

func logLevel(name string) slog.Level {
	var level slog.Level
	if err := level.UnmarshalText([]byte(name)); err != nil {
		return slog.LevelInfo
	}
	return level
}
