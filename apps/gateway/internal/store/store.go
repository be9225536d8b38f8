// Package store is the gateway's PostgreSQL access: agent authentication, exactly-once telemetry
// writes and enrolment. Every method runs in its own transaction and scopes rows to the org of
// the authenticated agent or token, never to anything a client sent.
package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Store wraps a pgx connection pool.
type Store struct {
	pool *pgxpool.Pool
	// lifetime of an agent credential (credential.go); zero means DefaultCredentialLifetime.
	lifetime time.Duration
	// tableTypes caches each telemetry table's column types (group.go columnTypes).
	tableTypes sync.Map
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
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("create database pool: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Close waits for borrowed connections to come back and closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, "SELECT 1")
	return err
}
