package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/groupcommit"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// groupOf returns an option giving the gateway a committer that writes a group only once it
// holds members requests (the window is far longer than any test), so the test decides which
// requests share a transaction.
func groupOf(t *testing.T, s *store.Store, members int) (option, *groupcommit.Committer) {
	c := groupcommit.New(groupcommit.Settings{Store: s, Window: time.Hour, MaxMembers: members, Writers: 1, WaitAlone: true})
	t.Cleanup(c.Close)
	return func(o *Options) { o.Writes = c }, c
}

type answer struct {
	status int
	body   []byte
}

// exportAll posts every body (credential → body) at once and returns the answers in order.
func exportAll(t *testing.T, base string, requests [][2]string) []answer {
	t.Helper()
	answers := make([]answer, len(requests))
	errs := make([]error, len(requests))
	var wg sync.WaitGroup
	for i, r := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, base+"/v1/metrics", bytes.NewReader([]byte(r[1])))
			if err != nil {
				errs[i] = err
				return
			}
			req.Header.Set("Content-Type", "application/x-protobuf")
			req.Header.Set("Authorization", "Bearer "+r[0])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			answers[i], errs[i] = answer{resp.StatusCode, body}, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return answers
}

// One group holds a good batch of one agent and a replay of another's; a third agent's
// malformed export at the same moment is refused before grouping. The good batch is written,
// the replay acknowledged without a second copy, the malformed export answered 400 with
// nothing written.
func TestGroupCommitsGoodBatchAcknowledgesReplayRefusesMalformed(t *testing.T) {
	g := newGateway(t)
	replaying := g.enroll(t, "org-a", "machine-replay")
	good := g.enroll(t, "org-a", "machine-good")
	malformed := g.enroll(t, "org-a", "machine-malformed")
	first := otlpfixture.Proto(otlpfixture.Build(sample(1)))
	if resp := g.export(t, replaying.Credential, first); resp.StatusCode != http.StatusOK {
		t.Fatalf("first delivery: %d %s", resp.StatusCode, readAll(t, resp))
	}

	option, committer := groupOf(t, g.server.store, 2)
	grouped, _ := serve(t, g.server.store, option)
	answers := exportAll(t, grouped, [][2]string{
		{replaying.Credential, string(first)},
		{good.Credential, string(otlpfixture.Proto(otlpfixture.Build(sample(1))))},
		{malformed.Credential, "\x0a\xff not protobuf"},
	})
	if answers[0].status != http.StatusOK || answers[1].status != http.StatusOK {
		t.Fatalf("replay %d %s, good %d %s: want 200 both", answers[0].status, answers[0].body, answers[1].status, answers[1].body)
	}
	if answers[2].status != http.StatusBadRequest {
		t.Fatalf("malformed: %d %s, want 400", answers[2].status, answers[2].body)
	}
	if committer.Groups() != 1 || committer.Members() != 2 {
		t.Fatalf("%d groups of %d members in all, want one group of the replay and the good batch", committer.Groups(), committer.Members())
	}
	for _, c := range []struct {
		agent enrolledAgent
		rows  int
	}{{replaying, 2}, {good, 2}, {malformed, 0}} {
		if n := g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1`, c.agent.ServerID); n != c.rows {
			t.Fatalf("server %s: %d disk rows, want %d", c.agent.ServerID, n, c.rows)
		}
	}
	if n := g.count(t, `SELECT count(*) FROM agents WHERE id = $1 AND batch_hwm = 0`, malformed.AgentID); n != 1 {
		t.Fatal("the malformed export moved its agent's mark")
	}
}

// The database goes away while a group is inside its transaction (its rows copied, its last
// statement waiting on a lock): every member is answered 503 and nothing of the group stays.
func TestDatabaseDownMidGroupAnswersEveryMember503AndWritesNothing(t *testing.T) {
	g := newGateway(t)
	a := g.enroll(t, "org-a", "machine-a")
	b := g.enroll(t, "org-a", "machine-b")

	dbURL, err := url.Parse(g.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newDBProxy(t, dbURL.Host)
	dbURL.Host = proxy.addr
	proxied, err := store.Open(context.Background(), dbURL.String(), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxied.Close)
	option, committer := groupOf(t, proxied, 2)
	grouped, _ := serve(t, proxied, option)

	// Hold server b's row: the group's closing UPDATE of servers waits behind it, after its COPYs.
	ctx := context.Background()
	blocker, err := g.db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = blocker.Rollback(ctx) }()
	if _, err := blocker.Exec(ctx, `SELECT 1 FROM servers WHERE id = $1 FOR UPDATE`, b.ServerID); err != nil {
		t.Fatal(err)
	}

	done := make(chan []answer, 1)
	go func() {
		done <- exportAll(t, grouped, [][2]string{
			{a.Credential, string(otlpfixture.Proto(otlpfixture.Build(sample(1))))},
			{b.Credential, string(otlpfixture.Proto(otlpfixture.Build(sample(1))))},
		})
	}()
	// Wait for the event: the group's transaction blocked on the held row, its rows copied.
	for {
		var copied, waiting bool
		if err := g.db.QueryRow(ctx, `
			SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE servers SET%'),
			       EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			               WHERE c.relname = 'disk_io' AND l.mode = 'RowExclusiveLock')`).Scan(&waiting, &copied); err != nil {
			t.Fatal(err)
		}
		if waiting && copied {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	proxy.stop()
	answers := <-done
	for i, got := range answers {
		if got.status != http.StatusServiceUnavailable {
			t.Fatalf("member %d: %d %s, want 503", i, got.status, got.body)
		}
	}
	if err := blocker.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if committer.Groups() != 1 || committer.Members() != 2 {
		t.Fatalf("%d groups of %d members, want one of two", committer.Groups(), committer.Members())
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io`) + g.count(t, `SELECT count(*) FROM memory`); n != 0 {
		t.Fatalf("%d rows stayed from the failed group", n)
	}
	if n := g.count(t, `SELECT count(*) FROM agents WHERE batch_hwm <> 0`); n != 0 {
		t.Fatalf("%d marks moved by the failed group", n)
	}
}
