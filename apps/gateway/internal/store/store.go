// Package store is the gateway's PostgreSQL access: agent authentication, exactly-once telemetry
// writes and enrolment. Every method runs in its own transaction and scopes rows to the org of
// the authenticated agent or token, never to anything a client sent.
package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Store wraps a pgx connection pool.
type Store struct {
	pool *pgxpool.Pool
	// lifetime of an agent credential (credential.go); zero means DefaultCredentialLifetime.
	lifetime time.Duration
	// tableTypes caches each telemetry table's column types (group.go columnTypes).
	tableTypes sync.Map
	// inUse counts connections handed out now; peak is its highest value since the last
	// ResetConnectionsPeak (how the gateway's admission pools are shown to bound a flood).
	inUse, peak atomic.Int32
}

// Open creates the pool without connecting: the gateway starts while the database is down and
// answers 503 until it is back. maxConns applies unless the URL sets pool_max_conns itself.
func Open(ctx context.Context, databaseURL string, maxConns int32) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = maxConns
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "spindle-gateway"
	}
	s := &Store{}
	cfg.ConnConfig.Tracer = (*poolTracer)(s)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create database pool: %w", err)
	}
	s.pool = pool
	return s, nil
}

// poolTracer counts the connections handed out (pgxpool calls TraceRelease on every release,
// also for a connection it then destroys).
type poolTracer Store

func (t *poolTracer) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return ctx
}

func (t *poolTracer) TraceAcquireEnd(_ context.Context, _ *pgxpool.Pool, data pgxpool.TraceAcquireEndData) {
	if data.Err != nil {
		return
	}
	n := t.inUse.Add(1)
	for peak := t.peak.Load(); n > peak && !t.peak.CompareAndSwap(peak, n); peak = t.peak.Load() {
	}
}

func (t *poolTracer) TraceRelease(*pgxpool.Pool, pgxpool.TraceReleaseData) { t.inUse.Add(-1) }

// The connection's Tracer must be a query tracer too; queries are not traced.
func (t *poolTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (t *poolTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// ConnectionsPeak is the most connections of this pool in use at once since the last reset.
func (s *Store) ConnectionsPeak() int32 { return s.peak.Load() }

// ResetConnectionsPeak starts a new peak from the connections in use now.
func (s *Store) ResetConnectionsPeak() { s.peak.Store(s.inUse.Load()) }

// Close waits for borrowed connections to come back and closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, "SELECT 1")
	return err
}
