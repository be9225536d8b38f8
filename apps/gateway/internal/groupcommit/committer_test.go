package groupcommit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// recordingWriter records the groups it is handed and answers each member with its batch
// count, so a test sees which requests shared a transaction and that every caller got its own
// answer. The database side of a group is tested against PostgreSQL in internal/store and
// internal/httpapi.
type recordingWriter struct {
	mu     sync.Mutex
	groups [][]store.Member
	fail   error
	// gate, when set, holds the first group until it is closed (a writer busy with a slow group).
	gate chan struct{}
}

func (w *recordingWriter) WriteGroup(_ context.Context, members []store.Member) ([]store.Outcome, error) {
	w.mu.Lock()
	if w.gate != nil {
		gate := w.gate
		w.gate = nil
		w.mu.Unlock()
		<-gate
		w.mu.Lock()
	}
	defer w.mu.Unlock()
	w.groups = append(w.groups, members)
	if w.fail != nil {
		return nil, w.fail
	}
	outcomes := make([]store.Outcome, len(members))
	for i, m := range members {
		outcomes[i].Result.WrittenBatches = len(m.Batches)
	}
	return outcomes, nil
}

func agentOf(org string, i int) store.Agent {
	return store.Agent{ID: fmt.Sprintf("%s-agent-%d", org, i), OrgID: org}
}

// Requests of two organisations waiting together are written in groups of one organisation
// each, at most MaxMembers per group, and every caller gets its own member's outcome.
func TestGroupsNeverMixOrganisationsAndRespectMaxMembers(t *testing.T) {
	w := &recordingWriter{}
	// A short window: the last requests of a run may be fewer than MaxMembers.
	c := New(Settings{Store: w, Window: 10 * time.Millisecond, MaxMembers: 3, Writers: 1})
	defer c.Close()

	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := 0; i < 6; i++ {
		org := []string{"org-a", "org-b"}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			batches := make([]telemetry.Batch, i+1)
			result, err := c.Write(context.Background(), agentOf(org, i), batches)
			if err == nil && result.WrittenBatches != i+1 {
				err = fmt.Errorf("request %d got the outcome of another member: %+v", i, result)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	members := 0
	for _, g := range w.groups {
		if len(g) > 3 {
			t.Fatalf("a group of %d members, more than MaxMembers 3", len(g))
		}
		for _, m := range g {
			if m.Agent.OrgID != g[0].Agent.OrgID {
				t.Fatalf("a group mixes %s and %s", g[0].Agent.OrgID, m.Agent.OrgID)
			}
		}
		members += len(g)
	}
	if members != 6 || c.Members() != 6 || c.Groups() != int64(len(w.groups)) {
		t.Fatalf("%d members in %d groups (counters %d, %d), want all 6 written once", members, len(w.groups), c.Members(), c.Groups())
	}
}

// A group's error reaches every member of it.
func TestGroupErrorReachesEveryMember(t *testing.T) {
	down := fmt.Errorf("database down")
	c := New(Settings{Store: &recordingWriter{fail: down}, Window: time.Hour, MaxMembers: 2, Writers: 1, WaitAlone: true})
	defer c.Close()
	errs := make(chan error, 2)
	for i := 0; i < 2; i++ {
		go func() {
			_, err := c.Write(context.Background(), agentOf("org-a", i), nil)
			errs <- err
		}()
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != down {
			t.Fatalf("member got %v, want the group's error", err)
		}
	}
}

// A caller that gave up before its group was written gets its context's error and is not
// written, while the other member of its group is; Close writes what was collected and then
// refuses new requests.
func TestCallerThatGaveUpIsNotWrittenAndCloseRefusesNewRequests(t *testing.T) {
	gate := make(chan struct{})
	w := &recordingWriter{gate: gate}
	c := New(Settings{Store: w, Window: time.Hour, MaxMembers: 100, Writers: 1})
	first := make(chan error, 1)
	go func() {
		_, err := c.Write(context.Background(), agentOf("org-a", 0), nil)
		first <- err
	}()
	// The lone first caller goes to the writer at once, which holds it: the next callers find a
	// call in flight and wait for the hour-long window.
	for c.Groups() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp, stayed := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := c.Write(ctx, agentOf("org-a", 1), nil)
		gaveUp <- err
	}()
	go func() {
		_, err := c.Write(context.Background(), agentOf("org-a", 2), nil)
		stayed <- err
	}()
	for c.pendingForTest() < 2 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-gaveUp; err != context.Canceled {
		t.Fatalf("caller got %v, want context.Canceled", err)
	}
	close(gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := <-stayed; err != nil {
		t.Fatalf("the caller that stayed: %v", err)
	}
	if len(w.groups) != 2 || len(w.groups[1]) != 1 || w.groups[1][0].Agent.ID != agentOf("org-a", 2).ID {
		t.Fatalf("groups written %+v, want the first caller's, then one holding only the caller that stayed", w.groups)
	}
	if _, err := c.Write(context.Background(), agentOf("org-a", 3), nil); err != ErrClosed {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}

// A lone caller is written at once, without waiting for the window.
func TestLoneCallerDoesNotWaitForTheWindow(t *testing.T) {
	w := &recordingWriter{}
	c := New(Settings{Store: w, Window: time.Hour, MaxMembers: 100, Writers: 1})
	defer c.Close()
	if _, err := c.Write(context.Background(), agentOf("org-a", 1), nil); err != nil {
		t.Fatal(err)
	}
	if c.Groups() != 1 {
		t.Fatalf("%d groups, want 1", c.Groups())
	}
}

func (c *Committer) pendingForTest() int64 { return c.waiting.Load() }
