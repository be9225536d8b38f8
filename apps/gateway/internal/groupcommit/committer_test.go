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
}

func (w *recordingWriter) WriteGroup(_ context.Context, members []store.Member) ([]store.Outcome, error) {
	w.mu.Lock()
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
	c := New(Settings{Store: &recordingWriter{fail: down}, Window: time.Hour, MaxMembers: 2, Writers: 1})
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
// written; Close writes what was collected and then refuses new requests.
func TestCallerThatGaveUpIsNotWrittenAndCloseRefusesNewRequests(t *testing.T) {
	w := &recordingWriter{}
	c := New(Settings{Store: w, Window: time.Hour, MaxMembers: 100, Writers: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Write(ctx, agentOf("org-a", 1), nil)
		done <- err
	}()
	// Wait until the request is collected (the dispatcher holds it for the hour-long window).
	for c.pendingForTest() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("caller got %v, want context.Canceled", err)
	}
	c.Close()
	if len(w.groups) != 0 {
		t.Fatalf("%d groups written for a caller that gave up", len(w.groups))
	}
	if _, err := c.Write(context.Background(), agentOf("org-a", 2), nil); err != ErrClosed {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}

func (c *Committer) pendingForTest() int64 { return c.waiting.Load() }
