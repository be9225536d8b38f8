package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

// Two agents, one transaction: one COPY per table carries both agents' rows, each gets its own
// result, and both marks advance.
func TestWriteGroupWritesEveryMemberOnce(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	a := authenticate(t, s, enrol(t, s, "org-a", "machine-a").Credential)
	b := authenticate(t, s, enrol(t, s, "org-a", "machine-b").Credential)
	ctx := context.Background()

	outcomes, err := s.WriteGroup(ctx, []Member{
		{Agent: a, Batches: []telemetry.Batch{diskBatch(1, t0, 10), diskBatch(2, t0.Add(10e9), 11)}},
		{Agent: b, Batches: []telemetry.Batch{diskBatch(7, t0, 20)}},
		// A second request of agent a in the same group: its replay of 2 is a duplicate, 3 is new.
		{Agent: a, Batches: []telemetry.Batch{diskBatch(2, t0.Add(10e9), 11), diskBatch(3, t0.Add(20e9), 12)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []WriteResult{
		{WrittenBatches: 2, PreviousHWM: 0, BatchHWM: 2, DiskIORows: 2},
		{WrittenBatches: 1, PreviousHWM: 0, BatchHWM: 7, DiskIORows: 1},
		{WrittenBatches: 1, DuplicateBatches: 1, PreviousHWM: 2, BatchHWM: 3, DiskIORows: 1},
	}
	for i, o := range outcomes {
		if o.Err != nil || o.Result != want[i] {
			t.Fatalf("member %d: %+v, %v; want %+v", i, o.Result, o.Err, want[i])
		}
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io WHERE server_id = $1`, a.ServerID); n != 3 {
		t.Fatalf("agent a: %d rows, want 3", n)
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io WHERE server_id = $1`, b.ServerID); n != 1 {
		t.Fatalf("agent b: %d rows, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM agents WHERE (id = $1 AND batch_hwm = 3) OR (id = $2 AND batch_hwm = 7)`, a.ID, b.ID); n != 2 {
		t.Fatal("marks not advanced to 3 and 7")
	}
}

// A member whose rows the database refuses (here a zero interval, which the mapping never
// produces but the table's CHECK refuses) fails alone: the others of its group are written, and
// it leaves no row and no moved mark.
func TestWriteGroupIsolatesAMemberTheDatabaseRefuses(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	good := authenticate(t, s, enrol(t, s, "org-a", "machine-good").Credential)
	bad := authenticate(t, s, enrol(t, s, "org-a", "machine-bad").Credential)
	refused := diskBatch(1, t0, 10)
	refused.DiskIO[0].IntervalSeconds = 0

	outcomes, err := s.WriteGroup(context.Background(), []Member{
		{Agent: bad, Batches: []telemetry.Batch{refused}},
		{Agent: good, Batches: []telemetry.Batch{diskBatch(1, t0, 10)}},
	})
	if err != nil {
		t.Fatalf("group error %v, want per-member outcomes", err)
	}
	if outcomes[0].Err == nil || IsUnavailable(outcomes[0].Err) {
		t.Fatalf("refused member: %v, want the database's refusal", outcomes[0].Err)
	}
	if outcomes[1].Err != nil || outcomes[1].Result.WrittenBatches != 1 {
		t.Fatalf("good member: %+v, %v", outcomes[1].Result, outcomes[1].Err)
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io WHERE server_id = $1`, bad.ServerID); n != 0 {
		t.Fatalf("refused member wrote %d rows", n)
	}
	if n := count(t, s, `SELECT count(*) FROM agents WHERE id = $1 AND batch_hwm = 0`, bad.ID); n != 1 {
		t.Fatal("refused member's mark moved")
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io WHERE server_id = $1`, good.ServerID); n != 1 {
		t.Fatalf("good member: %d rows, want 1", n)
	}
}

// A revoked credential in a group fails its member only.
func TestWriteGroupRefusesARevokedMemberOnly(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	good := authenticate(t, s, enrol(t, s, "org-a", "machine-good").Credential)
	revoked := authenticate(t, s, enrol(t, s, "org-a", "machine-revoked").Credential)
	if _, err := s.pool.Exec(context.Background(), `UPDATE agents SET revoked_at = now() WHERE id = $1`, revoked.ID); err != nil {
		t.Fatal(err)
	}
	outcomes, err := s.WriteGroup(context.Background(), []Member{
		{Agent: revoked, Batches: []telemetry.Batch{diskBatch(1, t0, 10)}},
		{Agent: good, Batches: []telemetry.Batch{diskBatch(1, t0, 10)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(outcomes[0].Err, ErrRevokedCredential) || outcomes[1].Err != nil {
		t.Fatalf("outcomes %+v", outcomes)
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io`); n != 1 {
		t.Fatalf("%d rows, want the good member's 1", n)
	}
}

// A group spans one organisation: row-level security scopes its transaction.
func TestWriteGroupRefusesToMixOrganisations(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	testdb.Org(t, s.pool, "org-b")
	a := authenticate(t, s, enrol(t, s, "org-a", "machine-a").Credential)
	b := authenticate(t, s, enrol(t, s, "org-b", "machine-b").Credential)
	if _, err := s.WriteGroup(context.Background(), []Member{{Agent: a}, {Agent: b}}); err == nil {
		t.Fatal("a group of two organisations was written")
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io`); n != 0 {
		t.Fatalf("%d rows written", n)
	}
}

// A group queues each server's rollup range once, spanning what it wrote, in its own statement
// (migration 20261125120000_group_rollup_queue), and the tables' triggers do not queue it again;
// an insert outside the gateway, on the same pooled connections afterwards, is still queued by
// its trigger (the group's setting ends with its transaction).
func TestWriteGroupQueuesEachServersRollupRangeOnce(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	a := authenticate(t, s, enrol(t, s, "org-a", "machine-a").Credential)
	b := authenticate(t, s, enrol(t, s, "org-a", "machine-b").Credential)
	ctx := context.Background()
	if _, err := s.WriteGroup(ctx, []Member{
		{Agent: a, Batches: []telemetry.Batch{diskBatch(1, t0, 10), diskBatch(2, t0.Add(20e9), 11)}},
		{Agent: b, Batches: []telemetry.Batch{diskBatch(1, t0.Add(10e9), 20)}},
	}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		server      string
		first, last time.Time
	}{{a.ServerID, t0, t0.Add(20e9)}, {b.ServerID, t0.Add(10e9), t0.Add(10e9)}} {
		if n := count(t, s, `SELECT count(*) FROM rollup_pending WHERE source = 'disk_io' AND org_id = 'org-a' AND server_id = $1`, want.server); n != 1 {
			t.Fatalf("server %s: %d queued ranges, want 1", want.server, n)
		}
		if n := count(t, s, `SELECT count(*) FROM rollup_pending WHERE server_id = $1 AND first_time = $2 AND last_time = $3`,
			want.server, want.first, want.last); n != 1 {
			t.Fatalf("server %s: queued range is not %s … %s", want.server, want.first, want.last)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM rollup_pending`); n != 2 {
		t.Fatalf("%d queued ranges, want 2", n)
	}
	// Every pooled connection inserts once: none may still carry the group's setting.
	for i := 0; i < int(s.pool.Stat().TotalConns())+1; i++ {
		if _, err := s.pool.Exec(ctx, `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds) VALUES ($1, 'org-a', $2, 'sdz', 10)`,
			t0.Add(time.Duration(i+10)*time.Minute), a.ServerID); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM rollup_pending WHERE first_time >= $1`, t0.Add(10*time.Minute)); n != int(s.pool.Stat().TotalConns())+1 {
		t.Fatalf("%d inserts outside the gateway queued, want every one", n)
	}
}

// A table with copyAtRows rows or more goes by COPY, the others in the closing pipeline, in the
// same transaction: every row lands once and each server's range is queued once.
func TestWriteGroupCopiesALargeTableAndInsertsTheRest(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	a := authenticate(t, s, enrol(t, s, "org-a", "machine-a").Credential)
	b := authenticate(t, s, enrol(t, s, "org-a", "machine-b").Credential)
	large := make([]telemetry.Batch, copyAtRows)
	for i := range large {
		large[i] = diskBatch(int64(i+1), t0.Add(time.Duration(i)*10*time.Second), int64(i))
	}
	small := diskBatch(1, t0, 5)
	small.Memory = []telemetry.MemoryRow{{Time: t0, TotalBytes: m(1 << 30), AvailableBytes: m(1 << 29)}}
	if _, err := s.WriteGroup(context.Background(), []Member{{Agent: a, Batches: large}, {Agent: b, Batches: []telemetry.Batch{small}}}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT count(*) FROM disk_io`); n != copyAtRows+1 {
		t.Fatalf("%d disk rows, want %d", n, copyAtRows+1)
	}
	if n := count(t, s, `SELECT count(*) FROM memory WHERE server_id = $1`, b.ServerID); n != 1 {
		t.Fatalf("%d memory rows, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM rollup_pending WHERE source = 'disk_io' AND server_id = $1 AND first_time = $2 AND last_time = $3`,
		a.ServerID, t0, t0.Add(time.Duration(copyAtRows-1)*10*time.Second)); n != 1 {
		t.Fatal("the copied server's range is not queued once")
	}
	if n := count(t, s, `SELECT count(*) FROM rollup_pending`); n != 3 {
		t.Fatalf("%d queued ranges, want 3 (disk_io a and b, memory b)", n)
	}
	if n := count(t, s, `SELECT count(*) FROM agents WHERE id = $1 AND batch_hwm = $2`, a.ID, copyAtRows); n != 1 {
		t.Fatal("the copied member's mark did not advance")
	}
}
