package opamp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// countingStore is the real store, counting the fan-out's reads and failing batch writes on
// demand.
type countingStore struct {
	*store.Store
	policyReads  atomic.Int64
	failUpdates  atomic.Bool
	pendingMarks atomic.Int64 // servers marked pending by RecordPoliciesSent
	// holdStatuses, when set, makes RecordPolicyStatuses wait until it is closed (after
	// announcing itself on statusesHeld); reportWrites receives the time of each agent-rows write.
	holdStatuses atomic.Pointer[chan struct{}]
	statusesHeld chan struct{}
	reportWrites chan time.Time
	sweeps       chan time.Time // the start of each credential sweep (AuthenticateAgents)
}

func (c *countingStore) AuthenticateAgents(ctx context.Context, credentialHashes [][]byte) (map[string]store.CredentialCheck, error) {
	select {
	case c.sweeps <- time.Now():
	default:
	}
	return c.Store.AuthenticateAgents(ctx, credentialHashes)
}

func (c *countingStore) RecordPoliciesSent(ctx context.Context, orgID string, hashes map[string]string) error {
	c.pendingMarks.Add(int64(len(hashes)))
	return c.Store.RecordPoliciesSent(ctx, orgID, hashes)
}

func (c *countingStore) PolicyTargets(ctx context.Context, orgID string, serverIDs []string) (map[string]store.PolicyTarget, error) {
	c.policyReads.Add(1)
	return c.Store.PolicyTargets(ctx, orgID, serverIDs)
}

var errRefused = errors.New("test: the database refused the batch")

func (c *countingStore) RecordAgentReports(ctx context.Context, updates []store.AgentUpdate) error {
	if c.failUpdates.Load() {
		return errRefused
	}
	if c.reportWrites != nil {
		select {
		case c.reportWrites <- time.Now():
		default:
		}
	}
	return c.Store.RecordAgentReports(ctx, updates)
}

func (c *countingStore) RecordPolicyStatuses(ctx context.Context, updates []store.AgentUpdate) error {
	if c.failUpdates.Load() {
		return errRefused
	}
	if hold := c.holdStatuses.Load(); hold != nil {
		select {
		case c.statusesHeld <- struct{}{}:
		default:
		}
		<-*hold
	}
	return c.Store.RecordPolicyStatuses(ctx, updates)
}

func newCountingHarness(t *testing.T, customize func(*Settings)) (*harness, *countingStore) {
	var counting *countingStore
	h := newHarnessWith(t, testCredentialTTL, func(s *Settings) {
		counting = &countingStore{Store: s.Store.(*store.Store), statusesHeld: make(chan struct{}, 1), reportWrites: make(chan time.Time, 64),
			sweeps: make(chan time.Time, 256)}
		s.Store = counting
		if customize != nil {
			customize(s)
		}
	})
	return h, counting
}

// A fleet-wide change (one transaction writing every server's effective policy, as the worker
// does) reaches every connected agent and is recorded APPLIED for each, with the policies read
// once per gathered batch of notifications, not once per agent.
func TestFleetWidePolicyChangeReachesEveryAgent(t *testing.T) {
	const fleetSize = 40
	h, counting := newCountingHarness(t, func(s *Settings) { s.FanoutLinger = 200 * time.Millisecond })
	agents := []*fakeAgent{h.startAgent(agentOptions{transport: "websocket", secret: h.secret})}
	for i := 2; i <= fleetSize; i++ {
		_, secret := h.enrol(fmt.Sprintf("machine-%d", i))
		agents = append(agents, h.startAgent(agentOptions{transport: "websocket", secret: secret}))
	}
	document, hash := h.setFleetPolicy(30)
	for _, a := range agents {
		a.expectConfig(t, document, hash)
	}
	h.fleetApplied(hash, fleetSize)

	readsBefore := counting.policyReads.Load()
	document, hash = h.setFleetPolicy(45)
	for _, a := range agents {
		a.expectConfig(t, document, hash)
	}
	h.fleetApplied(hash, fleetSize)
	if reads := counting.policyReads.Load() - readsBefore; reads >= fleetSize/4 {
		t.Fatalf("the fan-out read the policies %d times for %d agents; want one read per batch of notifications", reads, fleetSize)
	}
}

// fleetApplied waits until n servers of the organisation report hash APPLIED.
func (h *harness) fleetApplied(hash string, n int) {
	h.t.Helper()
	var applied int
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := h.db.QueryRow(context.Background(), `SELECT count(*) FROM server_policy_status
			WHERE org_id = $1 AND status = 'applied' AND applied_hash = $2`, h.orgID, hash).Scan(&applied); err != nil {
			h.t.Fatal(err)
		}
		if applied == n {
			return
		}
	}
	h.t.Fatalf("%d of %d servers applied %s", applied, n, hash)
}

// While batch writes fail, what the agents say is kept and retried: once the database takes
// writes again the APPLIED status, the host description and the health all arrive.
func TestReportsAreRetriedWhenTheBatchWriteFails(t *testing.T) {
	failed := make(chan struct{}, 64)
	h, counting := newCountingHarness(t, func(s *Settings) {
		s.Callbacks.OnReportsWritten = func(_ int, err error) {
			if err != nil {
				select {
				case failed <- struct{}{}:
				default:
				}
			}
		}
	})
	counting.failUpdates.Store(true)
	document, hash := h.setPolicy(30)
	agent := h.startAgent(agentOptions{transport: "websocket", secret: h.secret})
	agent.expectConfig(t, document, hash)
	for range 2 { // the first attempt and a retry both failed
		select {
		case <-failed:
		case <-time.After(60 * time.Second):
			t.Fatal("no batch write was attempted")
		}
	}
	counting.failUpdates.Store(false)
	h.policyStatus(func(status, applied, reported, _ string) bool {
		return status == "applied" && applied == hash && reported == hash
	})
	var hostname string
	var healthy *bool
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := h.db.QueryRow(context.Background(), `SELECT s.hostname, (a.health->>'healthy')::bool
			FROM servers s JOIN agents a ON a.server_id = s.id WHERE s.id = $1`, h.serverID).Scan(&hostname, &healthy); err != nil {
			t.Fatal(err)
		}
		if healthy != nil || time.Now().After(deadline) {
			break
		}
	}
	if hostname != "db-opamp" || healthy == nil || !*healthy {
		t.Fatalf("after the retry: hostname %q healthy %v, want the agent's report", hostname, healthy)
	}
}

// Heartbeats are written in batches and still tell online from offline: after both agents'
// last-seen is set far back (offline), the one that keeps heartbeating is marked seen after the
// other stopped, and the stopped one is never marked seen later than its stop.
func TestCoalescedHeartbeatsMarkOnlineAndOffline(t *testing.T) {
	written := make(chan struct{}, 256)
	h, _ := newCountingHarness(t, func(s *Settings) {
		s.SeenFlushInterval = 100 * time.Millisecond
		s.Callbacks.OnReportsWritten = func(_ int, err error) {
			if err == nil {
				select {
				case written <- struct{}{}:
				default:
				}
			}
		}
	})
	document, hash := h.setPolicy(30)
	otherServer, otherSecret := h.enrol("machine-2")
	h.setFleetPolicy(30)
	stays := h.startAgent(agentOptions{transport: "websocket", secret: h.secret, heartbeat: 50 * time.Millisecond})
	leaves := h.startAgent(agentOptions{transport: "websocket", secret: otherSecret, heartbeat: 50 * time.Millisecond})
	stays.expectConfig(t, document, hash)
	leaves.expectConfig(t, document, hash)
	h.fleetApplied(hash, 2)

	leaves.stop()
	stoppedAt := time.Now()
	// Both look offline now; only heartbeats can bring one back.
	if _, err := h.db.Exec(context.Background(), `UPDATE agents SET opamp_seen_at = '2000-01-01' WHERE org_id = $1`, h.orgID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.Exec(context.Background(), `UPDATE servers SET last_seen_at = '2000-01-01' WHERE org_id = $1`, h.orgID); err != nil {
		t.Fatal(err)
	}
	seen := func(serverID string) (opamp, server time.Time) {
		t.Helper()
		if err := h.db.QueryRow(context.Background(), `SELECT a.opamp_seen_at, s.last_seen_at FROM agents a JOIN servers s ON s.id = a.server_id
			WHERE s.id = $1`, serverID).Scan(&opamp, &server); err != nil {
			t.Fatal(err)
		}
		return opamp, server
	}
	for deadline := time.Now().Add(60 * time.Second); ; {
		select {
		case <-written:
		case <-time.After(time.Until(deadline)):
			t.Fatal("the heartbeating agent was never marked seen again")
		}
		if opamp, server := seen(h.serverID); opamp.After(stoppedAt) && server.After(stoppedAt) {
			break
		}
	}
	if opamp, server := seen(otherServer); opamp.After(stoppedAt) || server.After(stoppedAt) {
		t.Fatalf("the agent stopped at %s was marked seen at %s / %s", stoppedAt, opamp, server)
	}
}

// After a policy change, the agents' rows (last seen, effective config: a row per agent) wait
// while the confirmations are being written, by one SeenFlushInterval at most, so a fleet-wide
// change's 10,000-row flush does not compete with the APPLIED rows everyone waits for.
func TestAgentRowsWaitForTheConfirmations(t *testing.T) {
	const fleetSize = 5
	const interval = 300 * time.Millisecond
	h, counting := newCountingHarness(t, func(s *Settings) { s.SeenFlushInterval = interval })
	agents := []*fakeAgent{h.startAgent(agentOptions{transport: "websocket", secret: h.secret})}
	for i := 2; i <= fleetSize; i++ {
		_, secret := h.enrol(fmt.Sprintf("machine-%d", i))
		agents = append(agents, h.startAgent(agentOptions{transport: "websocket", secret: secret}))
	}
	document, hash := h.setFleetPolicy(30)
	for _, a := range agents {
		a.expectConfig(t, document, hash)
	}
	h.fleetApplied(hash, fleetSize)
	time.Sleep(3 * interval) // the connections' own rows written; the writer of agents' rows idle
	for len(counting.reportWrites) > 0 {
		<-counting.reportWrites
	}

	hold := make(chan struct{})
	counting.holdStatuses.Store(&hold)
	release := sync.OnceFunc(func() { counting.holdStatuses.Store(nil); close(hold) })
	defer release()
	document, hash = h.setFleetPolicy(45)
	for _, a := range agents {
		a.expectConfig(t, document, hash)
	}
	<-counting.statusesHeld // the agents answered (effective config and APPLIED); their statuses are being written
	heldAt := time.Now()
	select {
	case at := <-counting.reportWrites:
		// The effective configs arrived at most a few milliseconds before the statuses: without
		// standing back they would be written one interval later.
		if waited := at.Sub(heldAt); waited < interval+interval/2 {
			t.Fatalf("the agents' rows were written %s after the confirmations' write began, while it was still going on; want them to wait (up to another %s)", waited, interval)
		}
	case <-time.After(10 * interval):
		t.Fatal("the agents' rows waited more than one extra interval for the confirmations")
	}
	release()
	h.fleetApplied(hash, fleetSize)
}

// A credential sweep due while a policy change is being confirmed waits, by a quarter of the
// credential TTL at most: sweeps keep coming, further apart, and every connection stays open.
func TestCredentialSweepsWaitForTheConfirmations(t *testing.T) {
	h, counting := newCountingHarness(t, nil) // credential TTL 200 ms: a sweep every 100 ms
	agent := h.startAgent(agentOptions{transport: "websocket", secret: h.secret})
	document, hash := h.setFleetPolicy(30)
	agent.expectConfig(t, document, hash)
	h.fleetApplied(hash, 1)

	hold := make(chan struct{})
	counting.holdStatuses.Store(&hold)
	release := sync.OnceFunc(func() { counting.holdStatuses.Store(nil); close(hold) })
	defer release()
	document, hash = h.setFleetPolicy(45)
	agent.expectConfig(t, document, hash)
	<-counting.statusesHeld
	for len(counting.sweeps) > 0 {
		<-counting.sweeps
	}
	var during []time.Time
	for end := time.After(time.Second); ; {
		select {
		case at := <-counting.sweeps:
			during = append(during, at)
			continue
		case <-end:
		}
		break
	}
	release()
	if len(during) < 3 {
		t.Fatalf("%d credential sweeps in a second of confirming; want them delayed, not stopped (every 150 ms at most)", len(during))
	}
	for i := 1; i < len(during); i++ {
		if gap := during[i].Sub(during[i-1]); gap < 140*time.Millisecond {
			t.Fatalf("credential sweeps %s apart while a change was being confirmed; want half the TTL (100ms) and up to a quarter more (50ms)", gap)
		}
	}
	h.fleetApplied(hash, 1)
	if h.server.ConnectedAgents() != 1 {
		t.Fatalf("%d agents connected after the sweeps, want 1", h.server.ConnectedAgents())
	}
}
