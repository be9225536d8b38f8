// Package config reads the gateway's settings from the environment, once, at start-up. Nothing
// else in the gateway reads the environment; a bad value stops the gateway with a message that
// says which variable to fix.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
	// MaxConcurrentWrites bounds exports being decoded and written at once; their database
	// work shares the group commit's few transactions (SPINDLE_MAX_CONCURRENT_WRITES); MaxQueuedWrites more may wait (SPINDLE_MAX_QUEUED_WRITES),
	// beyond that the gateway answers 429 with Retry-After.
	MaxConcurrentWrites int
	MaxQueuedWrites     int
	// LogLevel is debug, info, warn or error (SPINDLE_LOG_LEVEL).
	LogLevel slog.Level
	// SigningKeyFile is the Ed25519 private key (PKCS#8 PEM) that signs SHA256SUMS
	// (SPINDLE_SIGNING_KEY_FILE); it must exist. Empty: SigningKeyPath in StateDir, generated on
	// the first start.
	SigningKeyFile string
	// StateDir keeps what the gateway generates for itself across restarts, the signing key
	// (SPINDLE_GATEWAY_STATE_DIR).
	StateDir string
	// Limits are the abuse bounds (docs/configure.md, "Limits").
	Limits Limits
	// RelayCredentials are the spr_ credentials of the OpenTelemetry Collectors that may relay
	// many agents' exports in one request (SPINDLE_RELAY_CREDENTIALS, comma-separated; none by
	// default, which turns relaying off).
	RelayCredentials []string
}

// Limits bound what any one client, credential or request can cost the gateway.
type Limits struct {
	// BodyReadTimeout bounds how long a body may take to arrive (SPINDLE_BODY_READ_TIMEOUT).
	BodyReadTimeout time.Duration
	// MaxConcurrentEnrolls: enrolment's own admission pool (SPINDLE_MAX_CONCURRENT_ENROLLS).
	MaxConcurrentEnrolls int
	// Requests per second and burst per client address and per agent credential; 0 turns a
	// limit off (SPINDLE_RATE_PER_ADDRESS, SPINDLE_BURST_PER_ADDRESS, SPINDLE_RATE_PER_CREDENTIAL,
	// SPINDLE_BURST_PER_CREDENTIAL).
	RatePerAddress, RatePerCredential   float64
	BurstPerAddress, BurstPerCredential int
	// TrustedProxies are the peers whose X-Forwarded-For names the client (SPINDLE_TRUSTED_PROXIES,
	// comma-separated addresses or CIDR prefixes).
	TrustedProxies []netip.Prefix
	// The accepted point window: now − TimestampMaxAge to now + TimestampMaxAhead
	// (SPINDLE_TIMESTAMP_MAX_AGE, SPINDLE_TIMESTAMP_MAX_AHEAD).
	TimestampMaxAge, TimestampMaxAhead time.Duration
	// OpAMP: message size (SPINDLE_OPAMP_MAX_MESSAGE_BYTES), WebSockets per credential
	// (SPINDLE_OPAMP_MAX_CONNECTIONS_PER_AGENT), concurrent requests (SPINDLE_OPAMP_MAX_CONCURRENT)
	// and database connections of its own pool (SPINDLE_OPAMP_DB_CONNECTIONS).
	OpAMPMaxMessageBytes        int64
	OpAMPMaxConnectionsPerAgent int
	OpAMPMaxConcurrent          int
	OpAMPDBConnections          int
	// CredentialCacheTTL: how long a checked credential is trusted; a revoked one stops working
	// within it (SPINDLE_CREDENTIAL_CACHE_TTL; 0 checks every request).
	CredentialCacheTTL time.Duration
	// Group commit (internal/groupcommit): how long the first waiting export waits for others
	// (SPINDLE_INGEST_GROUP_WINDOW; 0 writes at once, still coalescing while writers are busy)
	// and how many groups are written at once, each on its own connection
	// (SPINDLE_INGEST_GROUP_WRITERS).
	IngestGroupWindow  time.Duration
	IngestGroupWriters int
}

// DefaultLimits are the limits unless configured otherwise.
func DefaultLimits() Limits {
	return Limits{
		BodyReadTimeout: 10 * time.Second, MaxConcurrentEnrolls: 2,
		RatePerAddress: 50, BurstPerAddress: 200, RatePerCredential: 20, BurstPerCredential: 100,
		TimestampMaxAge: 7 * 24 * time.Hour, TimestampMaxAhead: 10 * time.Minute,
		OpAMPMaxMessageBytes: 1 << 20, OpAMPMaxConnectionsPerAgent: 4, OpAMPMaxConcurrent: 16, OpAMPDBConnections: 4,
		CredentialCacheTTL: 10 * time.Second,
		IngestGroupWindow:  2 * time.Millisecond, IngestGroupWriters: 2,
	}
}

const (
	DefaultListenAddr          = ":4318"
	DefaultPublicURL           = "http://localhost:4318"
	DefaultMaxBodyBytes        = 8 << 20
	DefaultMaxConcurrentWrites = 64
	DefaultMaxQueuedWrites     = 32
	DefaultStateDir            = ".spindle/gateway"
)

// SigningKeyPath is where the signing key lives: the configured file, or the one generated in
// the state directory.
func (c Config) SigningKeyPath() string {
	if c.SigningKeyFile != "" {
		return c.SigningKeyFile
	}
	return filepath.Join(c.StateDir, "signing-key.pem")
}

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
		DatabaseURL:    value("DATABASE_URL", ""),
		ListenAddr:     value("SPINDLE_GATEWAY_ADDR", DefaultListenAddr),
		AgentDistDir:   value("SPINDLE_AGENT_DIST_DIR", ""),
		SigningKeyFile: value("SPINDLE_SIGNING_KEY_FILE", ""),
		StateDir:       value("SPINDLE_GATEWAY_STATE_DIR", DefaultStateDir),
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

	if cfg.SigningKeyFile != "" {
		if info, err := os.Stat(cfg.SigningKeyFile); err != nil || !info.Mode().IsRegular() {
			problem("SPINDLE_SIGNING_KEY_FILE=%q is not a file: create the key with `openssl genpkey -algorithm ed25519 -out <file>`, or leave it unset to have one generated in SPINDLE_GATEWAY_STATE_DIR", cfg.SigningKeyFile)
		}
	}

	cfg.MaxBodyBytes = int64(positiveInt(value, "SPINDLE_MAX_BODY_BYTES", DefaultMaxBodyBytes, 1024, problem))
	cfg.MaxConcurrentWrites = positiveInt(value, "SPINDLE_MAX_CONCURRENT_WRITES", DefaultMaxConcurrentWrites, 1, problem)
	cfg.MaxQueuedWrites = positiveInt(value, "SPINDLE_MAX_QUEUED_WRITES", DefaultMaxQueuedWrites, 0, problem)

	cfg.Limits = loadLimits(value, problem)
	for _, raw := range strings.Split(value("SPINDLE_RELAY_CREDENTIALS", ""), ",") {
		if raw = strings.TrimSpace(raw); raw == "" {
			continue
		}
		body, ok := strings.CutPrefix(raw, "spr_")
		if !ok || len(body) < 32 || len(body) > 128 || strings.ContainsAny(body, " \t\r\n") {
			problem("SPINDLE_RELAY_CREDENTIALS holds an entry that is not spr_ followed by 32 to 128 characters; make one with: printf 'spr_%%s\\n' \"$(openssl rand -hex 32)\"")
			continue
		}
		cfg.RelayCredentials = append(cfg.RelayCredentials, raw)
	}

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

func loadLimits(value func(key, fallback string) string, problem func(string, ...any)) Limits {
	d := DefaultLimits()
	l := Limits{
		BodyReadTimeout:             duration(value, "SPINDLE_BODY_READ_TIMEOUT", d.BodyReadTimeout, time.Second, problem),
		MaxConcurrentEnrolls:        positiveInt(value, "SPINDLE_MAX_CONCURRENT_ENROLLS", d.MaxConcurrentEnrolls, 1, problem),
		RatePerAddress:              rate(value, "SPINDLE_RATE_PER_ADDRESS", d.RatePerAddress, problem),
		BurstPerAddress:             positiveInt(value, "SPINDLE_BURST_PER_ADDRESS", d.BurstPerAddress, 1, problem),
		RatePerCredential:           rate(value, "SPINDLE_RATE_PER_CREDENTIAL", d.RatePerCredential, problem),
		BurstPerCredential:          positiveInt(value, "SPINDLE_BURST_PER_CREDENTIAL", d.BurstPerCredential, 1, problem),
		TimestampMaxAge:             duration(value, "SPINDLE_TIMESTAMP_MAX_AGE", d.TimestampMaxAge, time.Minute, problem),
		TimestampMaxAhead:           duration(value, "SPINDLE_TIMESTAMP_MAX_AHEAD", d.TimestampMaxAhead, 0, problem),
		OpAMPMaxMessageBytes:        int64(positiveInt(value, "SPINDLE_OPAMP_MAX_MESSAGE_BYTES", int(d.OpAMPMaxMessageBytes), 1024, problem)),
		OpAMPMaxConnectionsPerAgent: positiveInt(value, "SPINDLE_OPAMP_MAX_CONNECTIONS_PER_AGENT", d.OpAMPMaxConnectionsPerAgent, 1, problem),
		OpAMPMaxConcurrent:          positiveInt(value, "SPINDLE_OPAMP_MAX_CONCURRENT", d.OpAMPMaxConcurrent, 1, problem),
		OpAMPDBConnections:          positiveInt(value, "SPINDLE_OPAMP_DB_CONNECTIONS", d.OpAMPDBConnections, 1, problem),
		CredentialCacheTTL:          duration(value, "SPINDLE_CREDENTIAL_CACHE_TTL", d.CredentialCacheTTL, 0, problem),
		IngestGroupWindow:           duration(value, "SPINDLE_INGEST_GROUP_WINDOW", d.IngestGroupWindow, 0, problem),
		IngestGroupWriters:          positiveInt(value, "SPINDLE_INGEST_GROUP_WRITERS", d.IngestGroupWriters, 1, problem),
	}
	for _, raw := range strings.Split(value("SPINDLE_TRUSTED_PROXIES", ""), ",") {
		if raw = strings.TrimSpace(raw); raw == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(raw)
		if err != nil {
			addr, addrErr := netip.ParseAddr(raw)
			if addrErr != nil {
				problem("SPINDLE_TRUSTED_PROXIES entry %q is neither an address nor a CIDR prefix: list your proxies like 10.0.0.5,10.1.0.0/16", raw)
				continue
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		l.TrustedProxies = append(l.TrustedProxies, prefix.Masked())
	}
	return l
}

func duration(value func(key, fallback string) string, key string, fallback, minimum time.Duration, problem func(string, ...any)) time.Duration {
	raw := value(key, fallback.String())
	d, err := time.ParseDuration(raw)
	if err != nil || d < minimum {
		problem("%s=%q must be a duration >= %s like 30s, 10m or 168h (default %s)", key, raw, minimum, fallback)
		return fallback
	}
	return d
}

func rate(value func(key, fallback string) string, key string, fallback float64, problem func(string, ...any)) float64 {
	raw := value(key, strconv.FormatFloat(fallback, 'f', -1, 64))
	r, err := strconv.ParseFloat(raw, 64)
	if err != nil || r < 0 {
		problem("%s=%q must be requests per second >= 0, 0 for no limit (default %v)", key, raw, fallback)
		return fallback
	}
	return r
}
