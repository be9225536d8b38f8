package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Execer is a pool, a connection or a transaction.
type Execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Org inserts an organisation the way the console's auth library would.
func Org(t testing.TB, db Execer, id string) {
	t.Helper()
	if _, err := db.Exec(context.Background(),
		`INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)`, id); err != nil {
		t.Fatalf("insert organisation %s: %v", id, err)
	}
}

// TokenState says how an enrolment token looks when a test uses it.
type TokenState int

const (
	TokenValid TokenState = iota
	TokenExpired
	TokenRevoked
)

// EnrollmentToken inserts an enrolment token as the console creates it (SHA-256 of the whole
// spe_ string) and returns the secret and the token's id.
func EnrollmentToken(t testing.TB, db Execer, orgID string, state TokenState) (secret, id string) {
	t.Helper()
	random := make([]byte, 24)
	_, _ = rand.Read(random)
	secret = "spe_" + base64.RawURLEncoding.EncodeToString(random)
	hash := sha256.Sum256([]byte(secret))
	expiresAt := time.Now().Add(time.Hour)
	var revokedAt *time.Time
	switch state {
	case TokenExpired:
		expiresAt = time.Now().Add(-time.Minute)
	case TokenRevoked:
		now := time.Now()
		revokedAt = &now
	}
	err := db.QueryRow(context.Background(), `
		INSERT INTO enrollment_tokens (org_id, label, token_hash, token_hint, expires_at, revoked_at)
		VALUES ($1, 'test', $2, $3, $4, $5) RETURNING id::text`,
		orgID, hash[:], secret[len(secret)-4:], expiresAt, revokedAt).Scan(&id)
	if err != nil {
		t.Fatalf("insert enrolment token: %v", err)
	}
	return secret, id
}
