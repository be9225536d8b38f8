package collector

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/agent/internal/dbdetect"
)

// testPostgreSQL returns the admin URL of the shared test server (scripts/test-db.sh), or
// skips (fails with CI=true) without one.
func testPostgreSQL(t *testing.T) string {
	t.Helper()
	admin := os.Getenv("SPINDLE_TEST_DATABASE_URL")
	if admin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("SPINDLE_TEST_DATABASE_URL is not set (CI runs the PostgreSQL tests)")
		}
		t.Skip(`SPINDLE_TEST_DATABASE_URL is not set: run eval "$(bash scripts/test-db.sh start)" first`)
	}
	return admin
}

// scratchDatabase creates an empty database of the test's own and drops it at the end. It is
// a plain database, not a copy of spindle_template: the statistics need no schema.
func scratchDatabase(t *testing.T, admin string) (name, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name = fmt.Sprintf("spindle_pgstats_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), admin)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return name, u.String()
}

// runWorkload commits and rolls back a known number of transactions on a connection of its
// own, closed at the end (a backend flushes its statistics when it exits). The simple
// protocol keeps pgx from adding prepare round trips, which count as transactions too.
func runWorkload(t *testing.T, dsn string, commits, rollbacks int) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range commits {
		if _, err := conn.Exec(ctx, "BEGIN; INSERT INTO orders VALUES ("+strconv.Itoa(i)+"); COMMIT"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range rollbacks {
		if _, err := conn.Exec(ctx, "BEGIN; INSERT INTO orders VALUES ("+strconv.Itoa(-i)+"); ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
	if err := conn.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestPgstatsFindsExactlyTheWorkloadsTransactions(t *testing.T) {
	admin := testPostgreSQL(t)
	name, dsn := scratchDatabase(t, admin)
	runWorkloadSQL(t, dsn, "CREATE TABLE orders (id int)")

	const commits, rollbacks = 40, 7
	// PostgreSQL counts one more commit per session: the backend's start-up transaction
	// (InitPostgres), which the workload's connection makes like any client.
	const wantCommits = commits + 1
	// An autovacuum worker visiting the scratch database inside the window commits too; it
	// comes at most once a minute, so a second window is clean whenever the first is not.
	var got map[string]float64
	for attempt := 1; attempt <= 3; attempt++ {
		got = measureWorkload(t, admin, name, dsn, commits, rollbacks)
		if got["commits"] == wantCommits && got["rollbacks"] == rollbacks {
			break
		}
		t.Logf("attempt %d: %v (background activity in the window?)", attempt, got)
	}
	if got["commits"] != wantCommits || got["rollbacks"] != rollbacks {
		t.Fatalf("deltas %v, want exactly %d commits (%d + the session's start-up) and %d rollbacks", got, wantCommits, commits, rollbacks)
	}
	if got["blocks_hit"] <= 0 {
		t.Errorf("the inserts touched shared buffers: blocks_hit %v", got["blocks_hit"])
	}
}

// measureWorkload baselines, runs the workload, and sums the collector's deltas for the
// database until the backend's statistics have arrived (and stay put for one more tick).
func measureWorkload(t *testing.T, admin, name, dsn string, commits, rollbacks int) map[string]float64 {
	t.Helper()
	ctx := context.Background()
	c, err := newPgstatsCollector(Options{PostgreSQL: PostgreSQLOptions{DSN: admin, Databases: []string{name}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if capability := c.(CapabilityReporter).Capability(); !capability.Available {
		t.Fatalf("capability %+v", capability)
	}
	if err := c.Collect(ctx, newRecordingSink()); err != nil { // baseline
		t.Fatal(err)
	}
	runWorkload(t, dsn, commits, rollbacks)
	sum := map[string]float64{}
	quiet := 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && quiet < 2; {
		time.Sleep(300 * time.Millisecond)
		sink := newRecordingSink()
		if err := c.Collect(ctx, sink); err != nil {
			t.Fatal(err)
		}
		changed := false
		for _, metric := range []string{"commits", "rollbacks", "blocks_hit", "blocks_read"} {
			unit := "{transaction}"
			if metric == "blocks_hit" || metric == "blocks_read" {
				unit = "{block}"
			}
			v, ok := sink.series["counter spindle.db.postgresql."+metric+"["+unit+"]{db.namespace="+name+"}"]
			if !ok {
				t.Fatalf("no %s for %s in %v", metric, name, sink.series)
			}
			n, _ := strconv.ParseFloat(v, 64)
			if n != 0 {
				changed = true
			}
			sum[metric] += n
		}
		if sum["commits"] >= float64(commits+1) && !changed {
			quiet++
		}
	}
	return sum
}

func runWorkloadSQL(t *testing.T, dsn, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatal(err)
	}
}

func TestPgstatsReadsEveryNonTemplateDatabaseAndSurvivesARestartOfTheConnection(t *testing.T) {
	admin := testPostgreSQL(t)
	name, _ := scratchDatabase(t, admin)
	c, err := newPgstatsCollector(Options{PostgreSQL: PostgreSQLOptions{DSN: admin}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pc := c.(*pgstatsCollector)
	ctx := context.Background()
	if err := c.Collect(ctx, newRecordingSink()); err != nil {
		t.Fatal(err)
	}
	if _, ok := pc.dbPrev[databaseOID(t, admin, name)]; !ok {
		t.Fatalf("%s missing from %v", name, pc.dbPrev)
	}
	for _, d := range pc.dbPrev {
		if d.name == "template0" || d.name == "template1" {
			t.Fatalf("template database %s read", d.name)
		}
	}
	// The server ends the agent's session (as a restart would): one tick fails with the
	// reason, the next reconnects and carries on.
	runWorkloadSQL(t, admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'spindle-agent' AND pid <> pg_backend_pid()")
	if err := c.Collect(ctx, newRecordingSink()); err == nil {
		t.Fatal("a terminated connection must fail this tick")
	}
	if err := c.Collect(ctx, newRecordingSink()); err != nil {
		t.Fatalf("the next tick must reconnect: %v", err)
	}
}

func databaseOID(t *testing.T, admin, name string) int64 {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var oid int64
	if err := conn.QueryRow(context.Background(), "SELECT oid::int8 FROM pg_database WHERE datname = $1", name).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	return oid
}

func TestAskingPostgreSQLForItsDataDirectory(t *testing.T) {
	admin := testPostgreSQL(t)
	dir, err := dbdetect.AskPostgreSQL(admin, 5*time.Second)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var want string
	if err := conn.QueryRow(context.Background(), "SELECT setting FROM pg_settings WHERE name = 'data_directory'").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if dir != want {
		t.Fatalf("data_directory %q, want %q", dir, want)
	}
}
