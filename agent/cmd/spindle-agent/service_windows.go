package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spindle-io/spindle/agent/internal/agent"
	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/winservice"
)

// maxLogBytes: agent.log is rotated to agent.log.1 at start once it is this large.
const maxLogBytes = 16 << 20

// runService runs the agent under the SCM, logging to agent.log beside the configuration and
// to the Application event log (info and above), since a service has no console.
func runService(cfg config.Config, configPath string) error {
	level := logLevel(cfg.LogLevel)
	file, err := openLogFile(filepath.Join(filepath.Dir(configPath), "agent.log"))
	if err != nil {
		return err
	}
	defer file.Close()
	handlers := []slog.Handler{slog.NewTextHandler(file, &slog.HandlerOptions{Level: level})}
	if events, err := winservice.OpenEventLog(level); err == nil {
		defer events.Close()
		handlers = append(handlers, events)
	} else {
		fmt.Fprintf(file, "the event log source %s cannot be opened (%v): logging to this file only\n", winservice.Name, err)
	}
	logger := slog.New(fanout(handlers))
	return winservice.RunService(func(ctx context.Context, logger *slog.Logger) error {
		return agent.Run(ctx, cfg, configPath, agent.Options{Version: version, Logger: logger, WindowsService: true})
	}, logger)
}

func openLogFile(path string) (*os.File, error) {
	if info, err := os.Stat(path); err == nil && info.Size() > maxLogBytes {
		_ = os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the log file: %w", err)
	}
	return f, nil
}

// fanout sends every record to each handler that wants it.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, level slog.Level) bool {
	for _, h := range f {
		if h.Enabled(ctx, level) {
			return true
		}
	}
	return false
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	var errs []error
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			errs = append(errs, h.Handle(ctx, r.Clone()))
		}
	}
	return errors.Join(errs...)
}

func (f fanout) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(attrs)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}
