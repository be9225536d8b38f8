package main

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/enroll"
)

// enrolmentPoll is how often an agent that is not enrolled yet looks for its token.
const enrolmentPoll = 5 * time.Second

// waitForEnrolment is `run` on an agent installed without enrolment (a .deb or .rpm, a
// Kubernetes pod): with enrolment_token_file set it waits, rather than exiting for its supervisor
// to restart it again and again, until the token file appears (a file a person or a
// configuration-management tool writes, or a Kubernetes Secret) and exchanges it with the gateway
// named in agent.yaml, or until `spindle-agent enroll` has written the enrolment itself. The token
// file is removed after a successful exchange: the credential replaces it.
func waitForEnrolment(ctx context.Context, configPath string, cfg config.Config, logger *slog.Logger) (config.Config, error) {
	logger.Info("not enrolled yet: waiting for an enrolment token", "token_file", cfg.EnrolmentTokenFile, "gateway", cfg.Gateway)
	lastProblem := ""
	for {
		current, err := config.Load(configPath)
		if err == nil && current.RequireEnrolled(configPath) == nil {
			return current, nil
		}
		if err == nil {
			cfg = current
		}
		problem := tryTokenFile(ctx, configPath, cfg, logger)
		if problem == "" {
			continue // enrolled: the next Load finds it
		}
		if problem != lastProblem {
			logger.Warn("not enrolled yet", "reason", problem)
			lastProblem = problem
		}
		select {
		case <-ctx.Done():
			return cfg, ctx.Err()
		case <-time.After(enrolmentPoll):
		}
	}
}

// tryTokenFile enrols with the token file when there is one; it returns what stands in the way.
func tryTokenFile(ctx context.Context, configPath string, cfg config.Config, logger *slog.Logger) string {
	token, err := readToken(cfg.EnrolmentTokenFile, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return "no token in " + cfg.EnrolmentTokenFile + " yet: write the enrolment token from the console there, or run spindle-agent enroll"
	}
	if err != nil {
		return err.Error()
	}
	if cfg.Gateway == "" {
		return "enrolment_token_file is set but agent.yaml names no gateway: set gateway: https://<gateway>:4318 in " + configPath
	}
	res, err := enroll.Enroll(ctx, enroll.Options{ConfigPath: configPath, Token: token, Gateway: cfg.Gateway, AgentVersion: version})
	if err != nil {
		return err.Error()
	}
	if err := os.Remove(cfg.EnrolmentTokenFile); errors.Is(err, syscall.EROFS) {
		// A Kubernetes Secret is mounted read-only: the token stays there, unread from now on
		// (the enrolment is in enrolment_file), until the Secret is deleted or expires.
		logger.Info("enrolled; the token file is read-only (a Kubernetes Secret?) and is left in place: it is not read again", "file", cfg.EnrolmentTokenFile)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		logger.Warn("enrolled, but the token file could not be removed: remove it yourself", "file", cfg.EnrolmentTokenFile, "error", err)
	}
	logger.Info("enrolled with the token file", "server_id", res.Response.ServerID, "agent_id", res.Response.AgentID)
	return ""
}
