// Package testdb gives each test its own PostgreSQL database, created from the migrated
// template named by the team's test-database convention:
//
//	SPINDLE_TEST_DATABASE_URL  admin URL of the test cluster
//	SPINDLE_TEST_TEMPLATE_DB   database migrated with packages/db (spindle_template)
//
// Without them the test is skipped (or fails when CI=true).
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var unsafeName = regexp.MustCompile(`[^a-z0-9_]+`)

// New creates a fresh database for t, drops it when t ends, and returns its URL.
func New(t testing.TB) string {
	t.Helper()
	adminURL := os.Getenv("SPINDLE_TEST_DATABASE_URL")
	template := os.Getenv("SPINDLE_TEST_TEMPLATE_DB")
	if adminURL == "" || template == "" {
		const hint = `SPINDLE_TEST_DATABASE_URL and SPINDLE_TEST_TEMPLATE_DB are not set: run eval "$(bash scripts/test-db.sh start)" from the repository root`
		if os.Getenv("CI") == "true" {
			t.Fatal(hint)
		}
		t.Skip(hint)
	}

	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	name := unsafeName.ReplaceAllString(strings.ToLower(t.Name()), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	name = "gw_" + name + "_" + hex.EncodeToString(suffix)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatalf("connect to the test cluster (SPINDLE_TEST_DATABASE_URL): %v", err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+pgx.Identifier{template}.Sanitize()); err != nil {
		t.Fatalf("create test database from template %s: %v", template, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
			return
		}
		defer admin.Close(context.Background())
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})

	u, err := url.Parse(adminURL)
	if err != nil {
		t.Fatalf("parse SPINDLE_TEST_DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}
