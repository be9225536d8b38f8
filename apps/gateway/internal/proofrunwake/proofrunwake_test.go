package proofrunwake

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

// A run queued in the database wakes the waiter of its server (and only that server's), and a
// running run whose agent went silent is failed by the sweep.
func TestWakesOnRunChangesAndFailsSilentRuns(t *testing.T) {
	dbURL := testdb.New(t)
	s, err := store.Open(context.Background(), dbURL, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	db, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	testdb.Org(t, db, "org-a")
	var serverA, serverB string
	for _, target := range []*string{&serverA, &serverB} {
		if err := db.QueryRow(context.Background(), `INSERT INTO servers (org_id, machine_id, hostname, os)
			VALUES ('org-a', gen_random_uuid()::text, 'db', 'linux') RETURNING id::text`).Scan(target); err != nil {
			t.Fatal(err)
		}
	}

	listening := make(chan struct{}, 1)
	w, err := New(Settings{Store: s, OnListening: func() { listening <- struct{}{} }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Silence: time.Second, SweepEvery: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	<-listening

	wokenA, stopA := w.Wait(serverA)
	defer stopA()
	wokenB, stopB := w.Wait(serverB)
	defer stopB()
	var runID string
	if err := db.QueryRow(context.Background(), `INSERT INTO proof_runs (org_id, server_id, profile, parameters)
		VALUES ('org-a', $1, 'sqlio', '{}') RETURNING id::text`, serverA).Scan(&runID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wokenA:
	case <-time.After(60 * time.Second):
		t.Fatal("the waiter of the run's server was not woken")
	}
	select {
	case <-wokenB:
		t.Fatal("another server's waiter was woken")
	case <-time.After(300 * time.Millisecond):
	}

	if _, err := db.Exec(context.Background(), `UPDATE proof_runs SET status = 'running', started_at = now(),
		heartbeat_at = now() - interval '1 minute' WHERE id = $1`, runID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var status string
		var message *string
		if err := db.QueryRow(context.Background(), `SELECT status, error FROM proof_runs WHERE id = $1`, runID).Scan(&status, &message); err != nil {
			t.Fatal(err)
		}
		if status == "failed" && message != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("silent run still %s", status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
