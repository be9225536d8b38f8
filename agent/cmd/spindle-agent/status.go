package main

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/status"
)

// errUnhealthy makes `status` exit 1 when the agent is not running or not delivering, so
// scripts and monitoring can call it.
var errUnhealthy = errors.New("agent unhealthy")

func statusCommand(args []string, stdout io.Writer) error {
	fs := newFlags("status", stdout)
	configPath := fs.String("config", config.DefaultPath, "path of agent.yaml")
	asJSON := fs.Bool("json", false, "print status.json instead of the summary")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*configPath)
	if err != nil {
		return err
	}
	if err := cfg.RequireEnrolled(*configPath); err != nil {
		return err
	}
	f, err := status.Read(cfg.StatusPath())
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(f)
	}
	now := time.Now()
	if err := status.Render(stdout, f, now); err != nil {
		return err
	}
	if health, _ := status.Assess(f, now); health != status.Healthy && health != status.Degraded {
		return errUnhealthy
	}
	return nil
}
