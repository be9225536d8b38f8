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
	"github.com/spindle-io/spindle/apps/gateway/internal/httpapi"
	"github.com/spindle-io/spindle/apps/gateway/internal/opamp"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// shutdownGrace lets in-flight exports commit before the process exits; agents retry the rest.
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
	// A few connections beyond the write slots keep /healthz and OpAMP answering under load; one
	// more is taken out of the pool for good by the OpAMP server's LISTEN.
	db, err := store.Open(ctx, cfg.DatabaseURL, int32(cfg.MaxConcurrentWrites+4))
	if err != nil {
		return err
	}
	defer db.Close()
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	if err := db.Ping(pingCtx); err != nil {
		log.Warn("database unreachable at start-up; serving anyway, exports get 503 until it answers", "error", err)
	}
	cancel()

	opampServer, err := opamp.New(opamp.Settings{Store: db, Logger: log})
	if err != nil {
		return err
	}
	opampCtx, stopOpAMP := context.WithCancel(context.WithoutCancel(ctx))
	opampDone := make(chan struct{})
	go func() { opampServer.Run(opampCtx); close(opampDone) }()
	defer func() { stopOpAMP(); <-opampDone }()

	handler, err := httpapi.New(httpapi.Options{
		Store:               db,
		Logger:              log,
		PublicURL:           cfg.PublicURL,
		AgentDistDir:        cfg.AgentDistDir,
		MaxBodyBytes:        cfg.MaxBodyBytes,
		MaxConcurrentWrites: cfg.MaxConcurrentWrites,
		MaxQueuedWrites:     cfg.MaxQueuedWrites,
		OpAMP:               opampServer.Handler(),
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
	log.Info("gateway stopped")
	return nil
}
