package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

var (
	t0 = time.Date(2026, 11, 21, 8, 0, 10, 0, time.UTC)
)

func openTestStore(t *testing.T) *Store {
	t.Helper()
	url := testdb.New(t)
	s, err := Open(context.Background(), url, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// enrol enrols a machine; a re-enrolment passes the machine's current credential.
func enrol(t *testing.T, s *Store, orgID, machineID string, current ...string) Enrolled {
	t.Helper()
	enrolled, err := tryEnrol(t, s, orgID, machineID, current...)
	if err != nil {
		t.Fatal(err)
	}
	return enrolled
}

func tryEnrol(t *testing.T, s *Store, orgID, machineID string, current ...string) (Enrolled, error) {
	t.Helper()
	token, _ := testdb.EnrollmentToken(t, s.pool, orgID, testdb.TokenValid)
	var currentHash []byte
	if len(current) > 0 {
		currentHash = credential.Hash(current[0])
	}
	return s.Enroll(context.Background(), Enrollment{
		CurrentCredentialHash: currentHash,
		TokenHash:             credential.Hash(token), MachineID: machineID, Hostname: "db01", OS: "linux",
		OSVersion: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0-18-amd64", Arch: "amd64", AgentVersion: "0.1.0",
	})
}

func authenticate(t *testing.T, s *Store, secret string) Agent {
	t.Helper()
	agent, err := s.AuthenticateAgent(context.Background(), credential.Hash(secret))
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

var m = telemetry.Measure

func diskBatch(seq int64, at time.Time, readOps int64) telemetry.Batch {
	return telemetry.Batch{Seq: seq, DiskIO: []telemetry.DiskIORow{{
		Time: at, Device: "sda", IntervalSeconds: 10, ReadOps: m(readOps), WriteOps: m(2), ReadBytes: m(4096), WriteBytes: m(8192),
		ReadMerged: m(1), WriteMerged: m(3), ReadTimeMs: m(5), WriteTimeMs: m(7), IOTimeMs: m(11), WeightedIOTimeMs: m(13),
		InProgress: sql.Null[int32]{V: 1, Valid: true},
	}}}
}

func count(t *testing.T, s *Store, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWriteBatchesStoresRowsAndSkipsReplays(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	enrolled := enrol(t, s, "org-a", "machine-1")
	agent := authenticate(t, s, enrolled.Credential)
	ctx := context.Background()

	batch := diskBatch(1, t0, 100)
	batch.Memory = []telemetry.MemoryRow{{Time: t0, TotalBytes: m(8 << 30), AvailableBytes: m(4 << 30), FreeBytes: m(1 << 30),
		CachedBytes: m(2 << 30), BuffersBytes: m(1 << 20), DirtyBytes: m(1 << 10), SwapTotalBytes: m(1 << 30), SwapFreeBytes: m(1 << 29)}}
	batch.Host = telemetry.HostInfo{Hostname: "db01-renamed", Kernel: "6.1.0-20-amd64"}
	result, err := s.WriteBatches(ctx, agent, []telemetry.Batch{batch})
	if err != nil {
		t.Fatal(err)
	}
	if result != (WriteResult{WrittenBatches: 1, DiskIORows: 1, MemoryRows: 1, BatchHWM: 1}) {
		t.Fatalf("result = %+v", result)
	}

	var row telemetry.DiskIORow
	var orgID, serverID string
	err = s.pool.QueryRow(ctx, `SELECT time, org_id, server_id::text, device, interval_seconds, read_ops, write_ops,
		read_bytes, write_bytes, read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms,
		weighted_io_time_ms, in_progress FROM disk_io`).Scan(&row.Time, &orgID, &serverID, &row.Device,
		&row.IntervalSeconds, &row.ReadOps, &row.WriteOps, &row.ReadBytes, &row.WriteBytes, &row.ReadMerged,
		&row.WriteMerged, &row.ReadTimeMs, &row.WriteTimeMs, &row.IOTimeMs, &row.WeightedIOTimeMs, &row.InProgress)
	if err != nil {
		t.Fatal(err)
	}
	row.Time = row.Time.UTC()
	if row != batch.DiskIO[0] || orgID != "org-a" || serverID != enrolled.ServerID {
		t.Fatalf("stored %+v for %s/%s, want %+v for org-a/%s", row, orgID, serverID, batch.DiskIO[0], enrolled.ServerID)
	}
	var swapTotal, cached int64
	if err := s.pool.QueryRow(ctx, `SELECT swap_total_bytes, cached_bytes FROM memory WHERE server_id = $1`, enrolled.ServerID).
		Scan(&swapTotal, &cached); err != nil || swapTotal != 1<<30 || cached != 2<<30 {
		t.Fatalf("memory row: swap %d cached %d err %v", swapTotal, cached, err)
	}
	var hostname, kernel, osVersion string
	var lastSeen *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT hostname, kernel, os_version, last_seen_at FROM servers WHERE id = $1`, enrolled.ServerID).
		Scan(&hostname, &kernel, &osVersion, &lastSeen); err != nil {
		t.Fatal(err)
	}
	if hostname != "db01-renamed" || kernel != "6.1.0-20-amd64" || osVersion != "Debian GNU/Linux 12 (bookworm)" || lastSeen == nil {
		t.Fatalf("server = %q %q %q %v; want the new hostname and kernel, the old OS version kept", hostname, kernel, osVersion, lastSeen)
	}

	// The same batch again (a replay after a lost acknowledgement) and an older one are
	// acknowledged without writing; seq 3 and 2 arriving out of order are both written.
	result, err = s.WriteBatches(ctx, agent, []telemetry.Batch{diskBatch(3, t0.Add(20*time.Second), 300), batch, diskBatch(2, t0.Add(10*time.Second), 200)})
	if err != nil {
		t.Fatal(err)
	}
	if result.WrittenBatches != 2 || result.DuplicateBatches != 1 || result.BatchHWM != 3 {
		t.Fatalf("result = %+v", result)
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io`); n != 3 {
		t.Fatalf("%d disk rows, want 3", n)
	}
	if n := count(t, s, `SELECT batch_hwm FROM agents WHERE id = $1`, agent.ID); n != 3 {
		t.Fatalf("batch_hwm = %d, want 3", n)
	}
}

func TestAuthenticateAgentRefusesUnknownAndRevokedCredentials(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	enrolled := enrol(t, s, "org-a", "machine-1")
	ctx := context.Background()

	if _, err := s.AuthenticateAgent(ctx, credential.Hash("spa_never-issued-credential")); !errors.Is(err, ErrUnknownCredential) {
		t.Fatalf("unknown credential: err = %v", err)
	}
	agent := authenticate(t, s, enrolled.Credential)
	if _, err := s.pool.Exec(ctx, `UPDATE agents SET revoked_at = now() WHERE id = $1`, enrolled.AgentID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AuthenticateAgent(ctx, credential.Hash(enrolled.Credential)); !errors.Is(err, ErrRevokedCredential) {
		t.Fatalf("revoked credential: err = %v", err)
	}
	// Revoked between authentication and the write: nothing is written, and the refusal says why.
	if _, err := s.WriteBatches(ctx, agent, []telemetry.Batch{diskBatch(1, t0, 1)}); !errors.Is(err, ErrRevokedCredential) {
		t.Fatalf("write after revocation: err = %v", err)
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io`); n != 0 {
		t.Fatalf("%d rows written by a revoked agent", n)
	}
}

func TestEnrollRefusesUnusableTokens(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	for state, want := range map[testdb.TokenState]error{testdb.TokenExpired: ErrTokenExpired, testdb.TokenRevoked: ErrTokenRevoked} {
		token, _ := testdb.EnrollmentToken(t, s.pool, "org-a", state)
		_, err := s.Enroll(context.Background(), Enrollment{TokenHash: credential.Hash(token), MachineID: "m", Hostname: "h", OS: "linux"})
		if !errors.Is(err, want) {
			t.Errorf("err = %v, want %v", err, want)
		}
	}
	_, err := s.Enroll(context.Background(), Enrollment{TokenHash: credential.Hash("spe_unknown"), MachineID: "m", Hostname: "h", OS: "linux"})
	if !errors.Is(err, ErrTokenUnknown) {
		t.Errorf("err = %v, want %v", err, ErrTokenUnknown)
	}
	if n := count(t, s, `SELECT count(*) FROM servers`) + count(t, s, `SELECT count(*) FROM agents`) +
		count(t, s, `SELECT coalesce(sum(uses), 0) FROM enrollment_tokens`); n != 0 {
		t.Fatalf("refused enrolments left %d rows or uses behind", n)
	}
}

func TestReenrollingAMachineRotatesTheCredentialAndKeepsTheServer(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	ctx := context.Background()
	first := enrol(t, s, "org-a", "machine-1")
	if first.BatchHWM != 0 || first.Reenrolled {
		t.Fatalf("first enrolment = %+v", first)
	}
	if _, err := s.WriteBatches(ctx, authenticate(t, s, first.Credential), []telemetry.Batch{diskBatch(41, t0, 1)}); err != nil {
		t.Fatal(err)
	}

	second := enrol(t, s, "org-a", "machine-1", first.Credential)
	if second.ServerID != first.ServerID || second.AgentID != first.AgentID || second.Credential == first.Credential ||
		second.BatchHWM != 41 || !second.Reenrolled {
		t.Fatalf("re-enrolment = %+v, first = %+v", second, first)
	}
	if _, err := s.AuthenticateAgent(ctx, credential.Hash(first.Credential)); !errors.Is(err, ErrUnknownCredential) {
		t.Fatalf("old credential still works: err = %v", err)
	}
	authenticate(t, s, second.Credential)
	if n := count(t, s, `SELECT count(*) FROM disk_io WHERE server_id = $1`, first.ServerID); n != 1 {
		t.Fatalf("history lost: %d rows", n)
	}
	if n := count(t, s, `SELECT count(*) FROM audit_log WHERE action = 'agent.enrolled' AND org_id = 'org-a'`); n != 2 {
		t.Fatalf("%d audit rows, want 2", n)
	}
	if n := count(t, s, `SELECT count(*) FROM audit_log WHERE details->>'reenrolled' = 'true' AND target = $1`, first.ServerID); n != 1 {
		t.Fatalf("re-enrolment not audited as such")
	}

	// Another organisation enrolling the same machine id gets its own server.
	testdb.Org(t, s.pool, "org-b")
	other := enrol(t, s, "org-b", "machine-1")
	if other.ServerID == first.ServerID || other.OrgID != "org-b" {
		t.Fatalf("org-b enrolment reused org-a's server: %+v", other)
	}
}

func TestEnrollCountsTokenUses(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	token, id := testdb.EnrollmentToken(t, s.pool, "org-a", testdb.TokenValid)
	for _, machine := range []string{"m1", "m2"} {
		if _, err := s.Enroll(context.Background(), Enrollment{TokenHash: credential.Hash(token), MachineID: machine, Hostname: machine, OS: "linux"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, s, `SELECT uses FROM enrollment_tokens WHERE id = $1 AND last_used_at IS NOT NULL`, id); n != 2 {
		t.Fatalf("uses = %d, want 2", n)
	}
}

func TestIsUnavailable(t *testing.T) {
	dead, err := Open(context.Background(), "postgres://postgres@127.0.0.1:1/none?connect_timeout=2", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	pingErr := dead.Ping(context.Background())
	if !IsUnavailable(pingErr) {
		t.Errorf("refused connection %v: not unavailable", pingErr)
	}
	for code, want := range map[string]bool{"08006": true, "57P01": true, "53300": true, "40001": true, "22003": false, "23514": false, "42P01": false} {
		if got := IsUnavailable(&pgconn.PgError{Code: code}); got != want {
			t.Errorf("SQLSTATE %s: unavailable = %v, want %v", code, got, want)
		}
	}
	if IsUnavailable(errors.New("unrelated")) || IsUnavailable(nil) {
		t.Error("a plain error counts as unavailable")
	}
}

// Two deliveries of the same batch at the same moment (a retry racing the original) queue on
// the agent row lock: one writes, the other sees the advanced mark.
func TestConcurrentDeliveriesOfOneBatchWriteOnce(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	agent := authenticate(t, s, enrol(t, s, "org-a", "machine-1").Credential)
	batch := diskBatch(1, t0, 100)

	results := make(chan WriteResult, 2)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			result, err := s.WriteBatches(context.Background(), agent, []telemetry.Batch{batch})
			results <- result
			errs <- err
		}()
	}
	written := 0
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		written += (<-results).WrittenBatches
	}
	if written != 1 {
		t.Fatalf("the batch was written %d times", written)
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io`); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
}

// The store writes a value the batch does not carry as NULL (not measured), never as 0.
func TestWriteBatchesStoresUnmeasuredValuesAsNull(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	agent := authenticate(t, s, enrol(t, s, "org-a", "machine-1").Credential)
	batch := telemetry.Batch{Seq: 1,
		DiskIO: []telemetry.DiskIORow{{Time: t0, Device: "sda", IntervalSeconds: 10, ReadOps: m(4), WriteOps: m(0)}},
		Memory: []telemetry.MemoryRow{{Time: t0, TotalBytes: m(8 << 30)}}}
	if _, err := s.WriteBatches(context.Background(), agent, []telemetry.Batch{batch}); err != nil {
		t.Fatal(err)
	}
	checks := map[string]int{
		`SELECT count(*) FROM disk_io WHERE read_ops = 4 AND write_ops = 0 AND read_merged IS NULL AND read_time_ms IS NULL
			AND weighted_io_time_ms IS NULL AND in_progress IS NULL`: 1,
		`SELECT count(*) FROM memory WHERE total_bytes = 8589934592 AND available_bytes IS NULL AND swap_total_bytes IS NULL`: 1,
	}
	for query, want := range checks {
		if got := count(t, s, query); got != want {
			t.Errorf("%s = %d, want %d", query, got, want)
		}
	}
}
