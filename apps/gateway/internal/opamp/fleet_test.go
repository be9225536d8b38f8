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
	// announcing itself on statusesHeld): holdConfirmations.
	holdStatuses atomic.Pointer[chan struct{}]
	statusesHeld chan struct{}
	// reportWrites receives each agent-rows write and sweeps the start of each credential sweep
	// (AuthenticateAgents): true when it came while the confirmations were held.
	reportWrites chan bool
	sweeps       chan bool
}

func (c *countingStore) AuthenticateAgents(ctx context.Context, credentialHashes [][]byte) (map[string]store.CredentialCheck, error) {
	select {
	case c.sweeps <- c.holdStatuses.Load() != nil:
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
	select {
	case c.reportWrites <- c.holdStatuses.Load() != nil:
	default:
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

// holdConfirmations makes the next policy-status writes wait (a policy change being confirmed)
// until release is called (at the latest when the test ends).
func (c *countingStore) holdConfirmations(t *testing.T) (release func()) {
	t.Helper()
	for len(c.statusesHeld) > 0 { // announced by a write of an earlier hold
		<-c.statusesHeld
	}
	hold := make(chan struct{})
	c.holdStatuses.Store(&hold)
	release = sync.OnceFunc(func() { c.holdStatuses.Store(nil); close(hold) })
	t.Cleanup(release)
	return release
}

// confirmationsHeld waits until a policy-status write waits on the hold.
func (c *countingStore) confirmationsHeld(t *testing.T) {
	t.Helper()
	select {
	case <-c.statusesHeld:
	case <-time.After(60 * time.Second):
		t.Fatal("no policy status was written")
	}
}

func newCountingHarness(t *testing.T, customize func(*Settings)) (*harness, *countingStore) {
	var counting *countingStore
	h := newHarnessWith(t, testCredentialTTL, func(s *Settings) {
		counting = &countingStore{Store: s.Store.(*store.Store), statusesHeld: make(chan struct{}, 1), reportWrites: make(chan bool, 64),
			sweeps: make(chan bool, 256)}
		s.Store = counting
		if customize != nil {
			customize(s)
		}
	})
	return h, counting
}

// fleet is agents connected over WebSocket, one per server of the harness's organisation:
// agents[i] is the agent of serverIDs[i], the first the harness's own server.
type fleet struct {
	agents    []*fakeAgent
	serverIDs []string
}

// startFleet enrols servers until the organisation has n, connects an agent of each over
// WebSocket (with o's other options), sets one policy for all of them as the worker does, and
// waits until every agent received it and every server is recorded APPLIED.
func (h *harness) startFleet(n int, o agentOptions) fleet {
	h.t.Helper()
	o.transport = "websocket"
	var f fleet
	for i := 1; i <= n; i++ {
		serverID, secret := h.serverID, h.secret
		if i > 1 {
			serverID, secret = h.enrol(fmt.Sprintf("machine-%d", i))
		}
		o.secret = secret
		f.agents = append(f.agents, h.startAgent(o))
		f.serverIDs = append(f.serverIDs, serverID)
	}
	h.fleetApplied(h.pushFleetPolicy(f, 30), n)
	return f
}

// pushFleetPolicy sets one policy for every server of the organisation and waits until every
// agent of f received it (not until it is confirmed); it returns the policy's hash.
func (h *harness) pushFleetPolicy(f fleet, intervalSeconds int) string {
	h.t.Helper()
	document, hash := h.setFleetPolicy(intervalSeconds)
	for _, a := range f.agents {
		a.expectConfig(h.t, document, hash)
	}
	return hash
}

// A fleet-wide change (one transaction writing every server's effective policy, as the worker
// does) reaches every connected agent and is recorded APPLIED for each, with the policies read
// once per gathered batch of notifications, not once per agent.
func TestFleetWidePolicyChangeReachesEveryAgent(t *testing.T) {
	const fleetSize = 40
	h, counting := newCountingHarness(t, func(s *Settings) { s.FanoutLinger = 200 * time.Millisecond })
	f := h.startFleet(fleetSize, agentOptions{})

	readsBefore := counting.policyReads.Load()
	hash := h.pushFleetPolicy(f, 45)
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
	f := h.startFleet(2, agentOptions{heartbeat: 50 * time.Millisecond})
	leaves, otherServer := f.agents[1], f.serverIDs[1]

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
