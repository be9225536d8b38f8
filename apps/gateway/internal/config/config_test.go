package config

import (
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func env(values map[string]string) func(string) string {
	return func(key string) string { return values[key] }
}

func TestLoadAppliesDefaults(t *testing.T) {
	cfg, err := Load(env(map[string]string{"DATABASE_URL": "postgres://spindle@localhost:5432/spindle"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		DatabaseURL: "postgres://spindle@localhost:5432/spindle", ListenAddr: ":4318", PublicURL: "http://localhost:4318",
		MaxBodyBytes: 8 << 20, MaxConcurrentWrites: 64, MaxQueuedWrites: 32, LogLevel: slog.LevelInfo,
		StateDir: ".spindle/gateway", Limits: DefaultLimits(),
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("cfg = %+v\nwant  %+v", cfg, want)
	}
	if cfg.SigningKeyPath() != ".spindle/gateway/signing-key.pem" {
		t.Fatalf("signing key path = %q, want the generated key in the state directory", cfg.SigningKeyPath())
	}
}

func TestLoadReadsEverySetting(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key.pem") // read at start-up (internal/signing); here only its presence counts
	if err := os.WriteFile(keyFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(env(map[string]string{
		"DATABASE_URL":                  "postgres://spindle@db:5432/spindle",
		"SPINDLE_GATEWAY_ADDR":          "127.0.0.1:9000",
		"SPINDLE_PUBLIC_URL":            "https://spindle.example.com/",
		"SPINDLE_AGENT_DIST_DIR":        dir,
		"SPINDLE_MAX_BODY_BYTES":        "1048576",
		"SPINDLE_MAX_CONCURRENT_WRITES": "2",
		"SPINDLE_MAX_QUEUED_WRITES":     "0",
		"SPINDLE_LOG_LEVEL":             "debug",
		"SPINDLE_SIGNING_KEY_FILE":      keyFile,
		"SPINDLE_GATEWAY_STATE_DIR":     "/var/lib/spindle-gateway",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.StateDir != "/var/lib/spindle-gateway" || cfg.SigningKeyPath() != cfg.SigningKeyFile {
		t.Fatalf("state dir %q, signing key %q", cfg.StateDir, cfg.SigningKeyPath())
	}
	if cfg.PublicURL != "https://spindle.example.com" || cfg.AgentDistDir != dir || cfg.MaxBodyBytes != 1<<20 ||
		cfg.MaxConcurrentWrites != 2 || cfg.MaxQueuedWrites != 0 || cfg.LogLevel != slog.LevelDebug || cfg.ListenAddr != "127.0.0.1:9000" {
		t.Fatalf("cfg = %+v", cfg)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	_, err := Load(env(map[string]string{
		"SPINDLE_GATEWAY_ADDR":          "4318",
		"SPINDLE_PUBLIC_URL":            "ftp://example.com",
		"SPINDLE_AGENT_DIST_DIR":        "/nonexistent/spindle",
		"SPINDLE_MAX_BODY_BYTES":        "lots",
		"SPINDLE_MAX_CONCURRENT_WRITES": "0",
		"SPINDLE_LOG_LEVEL":             "chatty",
		"SPINDLE_SIGNING_KEY_FILE":      "/nonexistent/key.pem",
	}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"DATABASE_URL is not set", "SPINDLE_GATEWAY_ADDR", "SPINDLE_PUBLIC_URL", "SPINDLE_AGENT_DIST_DIR",
		"SPINDLE_MAX_BODY_BYTES", "SPINDLE_MAX_CONCURRENT_WRITES", "SPINDLE_LOG_LEVEL", "SPINDLE_SIGNING_KEY_FILE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
}

func TestLoadRejectsPublicURLsUnsafeForTheInstaller(t *testing.T) {
	for _, raw := range []string{"http://example.com/'$(reboot)'", "https://user:pw@example.com", "localhost:4318"} {
		if _, err := Load(env(map[string]string{"DATABASE_URL": "postgres://localhost/x", "SPINDLE_PUBLIC_URL": raw})); err == nil {
			t.Errorf("SPINDLE_PUBLIC_URL=%q accepted", raw)
		}
	}
}

func TestLoadRejectsAnUnparsableDatabaseURL(t *testing.T) {
	_, err := Load(env(map[string]string{"DATABASE_URL": "postgres://localhost:notaport/x"}))
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL is not a valid") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadReadsLimits(t *testing.T) {
	cfg, err := Load(env(map[string]string{
		"DATABASE_URL":                "postgres://localhost/x",
		"SPINDLE_TRUSTED_PROXIES":     "10.0.0.5, 192.168.0.0/16",
		"SPINDLE_RATE_PER_ADDRESS":    "0",
		"SPINDLE_TIMESTAMP_MAX_AGE":   "72h",
		"SPINDLE_TIMESTAMP_MAX_AHEAD": "1m",
		"SPINDLE_BODY_READ_TIMEOUT":   "3s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	l := cfg.Limits
	if len(l.TrustedProxies) != 2 || l.TrustedProxies[0].String() != "10.0.0.5/32" || l.TrustedProxies[1].String() != "192.168.0.0/16" {
		t.Fatalf("trusted proxies %v", l.TrustedProxies)
	}
	if l.RatePerAddress != 0 || l.TimestampMaxAge != 72*time.Hour || l.TimestampMaxAhead != time.Minute || l.BodyReadTimeout != 3*time.Second {
		t.Fatalf("limits %+v", l)
	}
	_, err = Load(env(map[string]string{"DATABASE_URL": "postgres://localhost/x", "SPINDLE_TRUSTED_PROXIES": "proxy.local",
		"SPINDLE_TIMESTAMP_MAX_AGE": "forever", "SPINDLE_RATE_PER_CREDENTIAL": "-1"}))
	for _, want := range []string{"SPINDLE_TRUSTED_PROXIES", "SPINDLE_TIMESTAMP_MAX_AGE", "SPINDLE_RATE_PER_CREDENTIAL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s: %v", want, err)
		}
	}
}
