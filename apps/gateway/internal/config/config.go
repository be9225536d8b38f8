// Package config reads the gateway's settings from the environment, once, at start-up. Nothing
// else in the gateway reads the environment; a bad value stops the gateway with a message that
// says which variable to fix.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Config is the gateway's validated configuration.
type Config struct {
	// DatabaseURL is a PostgreSQL connection string (DATABASE_URL).
	DatabaseURL string
	// ListenAddr is host:port for the HTTP server (SPINDLE_GATEWAY_ADDR).
	ListenAddr string
	// PublicURL is how agents reach this gateway, without a trailing slash (SPINDLE_PUBLIC_URL).
	// install.sh and the console's one-liner point agents at it.
	PublicURL string
	// AgentDistDir holds spindle-agent-<os>-<arch> binaries for download (SPINDLE_AGENT_DIST_DIR).
	// Empty means this gateway serves no binaries.
	AgentDistDir string
	// MaxBodyBytes bounds a request body, before and after gunzip (SPINDLE_MAX_BODY_BYTES).
	MaxBodyBytes int64
	// MaxConcurrentWrites bounds requests writing to the database at once
	// (SPINDLE_MAX_CONCURRENT_WRITES); MaxQueuedWrites more may wait (SPINDLE_MAX_QUEUED_WRITES),
	// beyond that the gateway answers 429 with Retry-After.
	MaxConcurrentWrites int
	MaxQueuedWrites     int
	// LogLevel is debug, info, warn or error (SPINDLE_LOG_LEVEL).
	LogLevel slog.Level
}

const (
	DefaultListenAddr          = ":4318"
	DefaultPublicURL           = "http://localhost:4318"
	DefaultMaxBodyBytes        = 8 << 20
	DefaultMaxConcurrentWrites = 8
	DefaultMaxQueuedWrites     = 32
)

// Load reads the configuration through getenv (os.Getenv in production) and reports every
// problem at once.
func Load(getenv func(string) string) (Config, error) {
	var problems []error
	problem := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	value := func(key, fallback string) string {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			return v
		}
		return fallback
	}

	cfg := Config{
		DatabaseURL:  value("DATABASE_URL", ""),
		ListenAddr:   value("SPINDLE_GATEWAY_ADDR", DefaultListenAddr),
		AgentDistDir: value("SPINDLE_AGENT_DIST_DIR", ""),
	}

	if cfg.DatabaseURL == "" {
		problem("DATABASE_URL is not set: set it to the PostgreSQL connection string, e.g. postgres://spindle:secret@localhost:5432/spindle")
	} else if _, err := pgxpool.ParseConfig(cfg.DatabaseURL); err != nil {
		problem("DATABASE_URL is not a valid PostgreSQL connection string: %v", err)
	}

	if _, port, err := net.SplitHostPort(cfg.ListenAddr); err != nil || port == "" {
		problem("SPINDLE_GATEWAY_ADDR=%q is not host:port: set it like :4318 or 127.0.0.1:4318", cfg.ListenAddr)
	}

	publicURL, err := parsePublicURL(value("SPINDLE_PUBLIC_URL", DefaultPublicURL))
	if err != nil {
		problem("%w", err)
	}
	cfg.PublicURL = publicURL

	if cfg.AgentDistDir != "" {
		if info, err := os.Stat(cfg.AgentDistDir); err != nil || !info.IsDir() {
			problem("SPINDLE_AGENT_DIST_DIR=%q is not a directory: point it at the folder holding spindle-agent-linux-amd64 and friends, or leave it unset", cfg.AgentDistDir)
		}
	}

	cfg.MaxBodyBytes = int64(positiveInt(value, "SPINDLE_MAX_BODY_BYTES", DefaultMaxBodyBytes, 1024, problem))
	cfg.MaxConcurrentWrites = positiveInt(value, "SPINDLE_MAX_CONCURRENT_WRITES", DefaultMaxConcurrentWrites, 1, problem)
	cfg.MaxQueuedWrites = positiveInt(value, "SPINDLE_MAX_QUEUED_WRITES", DefaultMaxQueuedWrites, 0, problem)

	if err := cfg.LogLevel.UnmarshalText([]byte(value("SPINDLE_LOG_LEVEL", "info"))); err != nil {
		problem("SPINDLE_LOG_LEVEL=%q is not a level: use debug, info, warn or error", getenv("SPINDLE_LOG_LEVEL"))
	}

	if len(problems) > 0 {
		return Config{}, errors.Join(problems...)
	}
	return cfg, nil
}

func parsePublicURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("SPINDLE_PUBLIC_URL=%q is not an http(s) URL: set it to the address agents use to reach this gateway, e.g. https://spindle.example.com", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("SPINDLE_PUBLIC_URL must not contain credentials")
	}
	// Checked so the URL can be embedded in install.sh without any quoting surprise.
	if strings.ContainsAny(raw, "'\"`$\\ \t\n") {
		return "", fmt.Errorf("SPINDLE_PUBLIC_URL=%q contains quotes, spaces or shell characters", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

func positiveInt(value func(key, fallback string) string, key string, fallback, minimum int, problem func(string, ...any)) int {
	raw := value(key, strconv.Itoa(fallback))
	n, err := strconv.Atoi(raw)
	if err != nil || n < minimum {
		problem("%s=%q must be a whole number >= %d (default %d)", key, raw, minimum, fallback)
		return fallback
	}
	return n
}
