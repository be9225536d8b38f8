// Command spindle-gateway receives agent telemetry (OTLP/HTTP), enrols agents, and serves the
// installer and agent binaries. Configuration comes from the environment (see README.md).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/config"
	"github.com/spindle-io/spindle/apps/gateway/internal/groupcommit"
	"github.com/spindle-io/spindle/apps/gateway/internal/httpapi"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/opamp"
	"github.com/spindle-io/spindle/apps/gateway/internal/proofrunwake"
	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// shutdownGrace lets in-flight exports commit before the process exits; agents retry the rest.
// Nothing else holds a shutdown up: long polls are answered and OpAMP WebSockets closed as soon
// as it begins.
const shutdownGrace = 20 * time.Second

func main() {
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "spindle-gateway: invalid configuration:\n%v\n", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, log); err != nil {
		log.Error("gateway stopped", "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	limits := cfg.Limits
	// Ingest (exports, enrolment, /healthz) and OpAMP have pools of their own, so a reconnect
	// storm or a fleet-wide policy push cannot take the connections exports and health checks
	// need. Ingest: a connection per group-commit writer and enrolment slot, and one per pool of the
	// gates beside them (httpapi.GateConnections: /healthz, credential re-checks, first lookups,
	// renewals and proof-run calls), so no kind of request can take the connections of another.
	db, err := store.Open(ctx, cfg.DatabaseURL, int32(limits.IngestGroupWriters+limits.MaxConcurrentEnrolls+httpapi.GateConnections))
	if err != nil {
		return err
	}
	defer db.Close()
	// OpAMP: its connections, plus the one its LISTEN keeps for good.
	opampDB, err := store.Open(ctx, cfg.DatabaseURL, int32(limits.OpAMPDBConnections+1))
	if err != nil {
		return err
	}
	defer opampDB.Close()
	// Agent credential lifetime (default 90 days; agents renew when a third is left).
	if raw := os.Getenv("SPINDLE_AGENT_CREDENTIAL_LIFETIME"); raw != "" {
		lifetime, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("SPINDLE_AGENT_CREDENTIAL_LIFETIME=%q is not a duration such as 2160h: %w", raw, err)
		}
		if err := db.SetCredentialLifetime(lifetime); err != nil {
			return err
		}
	}
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	if err := db.Ping(pingCtx); err != nil {
		log.Warn("database unreachable at start-up; serving anyway, exports get 503 until it answers", "error", err)
	}
	cancel()

	signingKey, err := loadSigningKey(cfg, log)
	if err != nil {
		return err
	}
	// The agent releases served (downloads, upgrades over OpAMP, package repositories), rescanned
	// every minute and recorded for the console.
	catalogue := releases.New(cfg.AgentDistDir, signingKey)
	if err := catalogue.Refresh(); err != nil {
		log.Warn("some agent releases cannot be served", "error", err)
	}
	catalogueCtx, stopCatalogue := context.WithCancel(context.WithoutCancel(ctx))
	catalogueDone := make(chan struct{})
	go func() { catalogue.Run(catalogueCtx, releaseRescan, recordReleases(db), log); close(catalogueDone) }()
	defer func() { stopCatalogue(); <-catalogueDone }()

	// One credential check (store.Credentials) for both paths, each over its own pool.
	opampCredentials := store.NewCredentials(opampDB.AuthenticateAgent, limits.CredentialCacheTTL, store.DefaultCredentialCacheLimit)
	opampServer, err := opamp.New(opamp.Settings{Store: opampDB, Logger: log, Releases: catalogue, PublicURL: cfg.PublicURL,
		Credentials:            opampCredentials,
		MaxConnectionsPerAgent: limits.OpAMPMaxConnectionsPerAgent,
	})
	if err != nil {
		return err
	}
	opampCtx, stopOpAMP := context.WithCancel(context.WithoutCancel(ctx))
	opampDone := make(chan struct{})
	go func() { opampServer.Run(opampCtx); close(opampDone) }()
	defer func() { stopOpAMP(); <-opampDone }()

	waker, err := proofrunwake.New(proofrunwake.Settings{Store: db, Logger: log})
	if err != nil {
		return err
	}
	wakerCtx, stopWaker := context.WithCancel(context.Background())
	wakerDone := make(chan struct{})
	go func() { waker.Run(wakerCtx); close(wakerDone) }()
	defer func() { stopWaker(); <-wakerDone }()

	keyCtx, stopKeys := context.WithCancel(context.Background())
	keysDone := make(chan struct{})
	go func() { recordSigningKey(keyCtx, db, signingKey, log); close(keysDone) }()
	defer func() { stopKeys(); <-keysDone }()
	draining := make(chan struct{})
	writes := groupcommit.New(groupcommit.Settings{Store: db, Window: limits.IngestGroupWindow, Writers: limits.IngestGroupWriters})
	defer writes.Close()
	handler, err := httpapi.New(httpapi.Options{
		Writes:               writes,
		SigningKey:           signingKey,
		Releases:             catalogue,
		Store:                db,
		Logger:               log,
		PublicURL:            cfg.PublicURL,
		AgentDistDir:         cfg.AgentDistDir,
		MaxBodyBytes:         cfg.MaxBodyBytes,
		MaxConcurrentWrites:  cfg.MaxConcurrentWrites,
		MaxQueuedWrites:      cfg.MaxQueuedWrites,
		OpAMP:                opampServer.Handler(),
		Credentials:          store.NewCredentials(db.AuthenticateAgent, limits.CredentialCacheTTL, store.DefaultCredentialCacheLimit),
		OpAMPCredentials:     opampCredentials,
		MaxConcurrentEnrolls: limits.MaxConcurrentEnrolls,
		BodyReadTimeout:      limits.BodyReadTimeout,
		RatePerAddress:       httpapi.RateLimit{PerSecond: limits.RatePerAddress, Burst: limits.BurstPerAddress},
		RatePerCredential:    httpapi.RateLimit{PerSecond: limits.RatePerCredential, Burst: limits.BurstPerCredential},
		TrustedProxies:       limits.TrustedProxies,
		Bounds: ingest.Bounds{MaxAge: limits.TimestampMaxAge, MaxAhead: limits.TimestampMaxAhead,
			MaxTimestamps: ingest.DefaultMaxTimestamps, MaxDevices: ingest.DefaultMaxDevices},
		OpAMPLimits: httpapi.OpAMPLimits{MaxMessageBytes: limits.OpAMPMaxMessageBytes, MaxConcurrent: limits.OpAMPMaxConcurrent,
			MaxQueued: 4 * limits.OpAMPMaxConcurrent},
		ProofRunWaker:    waker,
		Draining:         draining,
		RelayCredentials: cfg.RelayCredentials,
	})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Addr:              cfg.ListenAddr,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnContext:       opampServer.ConnContext(), // plain-HTTP OpAMP finds its net.Conn here
	}

	// Shutdown closes the listener first, then calls this: agents cannot reconnect here once their
	// WebSockets are closed, and their long polls end at once. Shutdown itself waits only for
	// requests in flight (exports, which commit), never for hijacked WebSockets.
	srv.RegisterOnShutdown(func() {
		close(draining)
		stopOpAMP()
	})

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.ListenAndServe() }()
	log.Info("gateway listening", "addr", cfg.ListenAddr, "public_url", cfg.PublicURL,
		"agent_dist_dir", cfg.AgentDistDir, "max_concurrent_writes", cfg.MaxConcurrentWrites)

	select {
	case err := <-serveErr:
		return fmt.Errorf("listen on %s: %w", cfg.ListenAddr, err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "grace", shutdownGrace.String())
	shutdownCtx, cancelShutdown := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancelShutdown()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	// Shutdown runs its hooks in goroutines and does not wait for them: wait here for the OpAMP
	// server to close its WebSockets and flush the statuses it queued, so "stopped" means stopped.
	stopOpAMP()
	<-opampDone
	log.Info("gateway stopped")
	return nil
}

// loadSigningKey reads the configured signing key, or the one in the state directory,
// generating it on the first start. Every gateway behind one address needs the same key: an
// installer pins the key of the gateway that served it and checks SHA256SUMS.sig from whichever
// gateway answers next.
func loadSigningKey(cfg config.Config, log *slog.Logger) (signing.Key, error) {
	if cfg.SigningKeyFile != "" {
		key, err := signing.Load(cfg.SigningKeyFile)
		if err != nil {
			return signing.Key{}, fmt.Errorf("SPINDLE_SIGNING_KEY_FILE: %w", err)
		}
		return key, nil
	}
	key, created, err := signing.LoadOrCreate(cfg.SigningKeyPath())
	if err != nil {
		return signing.Key{}, fmt.Errorf("signing key in SPINDLE_GATEWAY_STATE_DIR=%s: %w", cfg.StateDir, err)
	}
	if created {
		log.Warn("generated a signing key for SHA256SUMS; give every gateway behind one address this same key (SPINDLE_SIGNING_KEY_FILE), docs/configure.md", "path", cfg.SigningKeyPath())
	}
	return key, nil
}

// releaseRescan is how often the distribution directory is read again for releases added or removed.
const releaseRescan = time.Minute

// recordReleases writes what the catalogue serves into agent_releases, where the console reads it.
func recordReleases(db *store.Store) func(context.Context, []releases.Release) error {
	return func(ctx context.Context, served []releases.Release) error {
		records := make([]store.ReleaseRecord, 0, len(served))
		for _, r := range served {
			record := store.ReleaseRecord{Version: r.Version}
			for _, f := range r.Binaries {
				record.Files = append(record.Files, store.ReleaseFile{OS: f.OS, Arch: f.Arch, Name: f.Name, SHA256: f.SHA256, Size: f.Size})
			}
			for _, f := range r.Packages {
				record.Packages = append(record.Packages, store.ReleaseFile{Name: f.Name, SHA256: f.SHA256, Size: f.Size, Format: f.Format, Arch: f.Arch})
			}
			records = append(records, record)
		}
		return db.RecordReleases(ctx, records)
	}
}

// recordSigningKey tells the console which P-256 key this gateway signs SHA256SUMS with (it pins
// it in the Windows one-liner): at start, retried every minute until the database takes it, then
// hourly, so a key in use never looks stale.
func recordSigningKey(ctx context.Context, db *store.Store, key signing.Key, log *slog.Logger) {
	for {
		recordCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := db.RecordSigningKey(recordCtx, key.P256PublicPoint())
		cancel()
		wait := time.Hour
		if err != nil {
			log.Warn("could not record the signing key for the console's Windows command; retrying in a minute", "error", err)
			wait = time.Minute
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
