package opamp

import (
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// fanout pushes effective policies to the WebSockets connected here. A fleet-wide change
// arrives as one notification per server, all at the commit of the worker's transaction; the
// fan-out gathers them while they arrive (FanoutLinger) and then costs one read per
// organisation, not per agent: server_effective_policies and server_policy_status for every
// named server at once, then the pushes themselves on sendWorkers goroutines; the pending marks
// are queued, never waited for.
type fanout struct {
	s       *Server
	mu      sync.Mutex
	pending map[string]struct{}
	wake    chan struct{}
	active  atomic.Bool // gathering notifications or pushing
}

// sendWorkers bounds the WebSocket writes in flight; each is a few hundred bytes to a local
// kernel buffer, so a few dozen keep a core busy without a goroutine per agent.
const sendWorkers = 32

func newFanout(s *Server) *fanout {
	return &fanout{s: s, pending: map[string]struct{}{}, wake: make(chan struct{}, 1)}
}

// add asks for the policies of these servers to be checked and pushed where needed.
func (f *fanout) add(serverIDs ...string) {
	f.mu.Lock()
	for _, id := range serverIDs {
		f.pending[id] = struct{}{}
	}
	f.mu.Unlock()
	signal(f.wake)
}

// maxFanoutWait bounds how long a fan-out keeps gathering notifications that are still arriving.
const maxFanoutWait = 200 * time.Millisecond

// gather waits until no notification arrived for FanoutLinger (at most maxFanoutWait) and takes
// what is pending: a fleet-wide commit's notifications, read by a busy gateway over a few hundred
// milliseconds, make one fan-out (one read of the policies) instead of dozens.
func (f *fanout) gather(ctx context.Context) map[string]struct{} {
	deadline := time.Now().Add(max(maxFanoutWait, f.s.settings.FanoutLinger))
	f.mu.Lock()
	size := len(f.pending)
	f.mu.Unlock()
	for {
		sleep(ctx, f.s.settings.FanoutLinger)
		f.mu.Lock()
		grown := len(f.pending) > size
		size = len(f.pending)
		if !grown || !time.Now().Before(deadline) || ctx.Err() != nil {
			taken := f.pending
			f.pending = map[string]struct{}{}
			f.mu.Unlock()
			return taken
		}
		f.mu.Unlock()
	}
}

func (f *fanout) run(ctx context.Context) {
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.wake:
		}
		f.active.Store(true)
		taken := f.gather(ctx)
		failed := f.s.pushPolicies(ctx, taken)
		f.active.Store(false)
		if len(failed) == 0 {
			failures = 0
			continue
		}
		failures++
		f.add(failed...)
		sleep(ctx, retryDelay(failures))
	}
}

// pushTarget is one connection and the policy it lacks.
type pushTarget struct {
	conn   *agentConnection
	hash   string
	remote *protobufs.AgentRemoteConfig
}

// pushPolicies sends each named server's effective policy to its WebSockets that lack it and
// returns the servers whose policy could not be read (to try again).
func (s *Server) pushPolicies(ctx context.Context, serverIDs map[string]struct{}) (failed []string) {
	byOrg := map[string]map[string][]*agentConnection{}
	for id := range serverIDs {
		for _, c := range s.registry.of(id) {
			if byOrg[c.agent.OrgID] == nil {
				byOrg[c.agent.OrgID] = map[string][]*agentConnection{}
			}
			byOrg[c.agent.OrgID][id] = append(byOrg[c.agent.OrgID][id], c)
		}
	}
	for orgID, conns := range byOrg {
		ids := make([]string, 0, len(conns))
		for id := range conns {
			ids = append(ids, id)
		}
		started := time.Now()
		targets := s.orgPushTargets(ctx, orgID, ids, conns)
		if targets == nil {
			failed = append(failed, ids...)
			continue
		}
		read := time.Since(started)
		s.recordSent(targets)
		s.send(targets)
		level := slog.LevelDebug // a connecting agent's first policy
		if len(targets) >= 100 {
			level = slog.LevelInfo // a change reaching many agents: worth an operator's line
		}
		s.settings.Logger.Log(ctx, level, "pushed policies", "org_id", orgID, "servers", len(ids), "sent", len(targets),
			"read", read.String(), "sent_after", time.Since(started).String())
	}
	return failed
}

// orgPushTargets reads one organisation's policies and decides which connections need theirs;
// nil when the database could not be read.
func (s *Server) orgPushTargets(ctx context.Context, orgID string, ids []string, conns map[string][]*agentConnection) []pushTarget {
	dbCtx, cancel := context.WithTimeout(ctx, s.settings.DatabaseTimeout)
	defer cancel()
	policies, err := s.settings.Store.PolicyTargets(dbCtx, orgID, ids)
	if err != nil {
		s.settings.Logger.Warn("could not read effective policies to push; retrying", "org_id", orgID, "servers", len(ids), "error", err)
		return nil
	}
	remotes := map[string]*protobufs.AgentRemoteConfig{} // one message per distinct policy
	targets := []pushTarget{}
	for id, list := range conns {
		target, ok := policies[id]
		if !ok {
			continue // no effective policy yet: nothing to send
		}
		remote, ok := remotes[target.Policy.Hash]
		if !ok {
			if remote = remoteConfig(target.Policy); remote == nil {
				s.settings.Logger.Error("effective policy hash is not hex", "hash", target.Policy.Hash)
				continue
			}
			remotes[target.Policy.Hash] = remote
		}
		for _, c := range list {
			if c.lacks(target) {
				targets = append(targets, pushTarget{conn: c, hash: target.Policy.Hash, remote: remote})
			}
		}
	}
	return targets
}

// recordSent queues the pending marks of the pushes (pendingMarks). The fan-out never waits for
// a database write: a fleet-wide change pushed in several batches sends each one at once.
func (s *Server) recordSent(targets []pushTarget) {
	now := time.Now()
	for _, t := range targets {
		s.pendingMarks.add(t.conn.agent.ID, sentMark{conn: t.conn, hash: t.hash, at: now})
	}
}

// sentMark is a policy pushed to an agent that has not answered it yet.
type sentMark struct {
	conn *agentConnection
	hash string
	at   time.Time // when it was pushed
}

func newerMark(a, b sentMark) sentMark {
	if a.at.After(b.at) {
		return a
	}
	return b
}

// writePendingMarks records desired_version_hash = the hash sent, status pending, for the
// pushes still unanswered PendingMarkDelay after they were sent (younger ones wait for the next
// round). One the agent answered meanwhile is left out: its APPLIED or FAILED carries the hash
// sent (PolicyUpdate.Sent), so the row goes from the old state to the new one in one write, and
// the console (which compares the row with the effective hash) shows pending in between all the
// same. At most MaxBatch rows per statement.
func (s *Server) writePendingMarks(ctx context.Context, marks []sentMark) error {
	due := time.Now().Add(-s.settings.PendingMarkDelay)
	byOrg := map[string][]sentMark{}
	for _, m := range marks {
		switch {
		case m.conn.answered(m.hash):
		case m.at.After(due):
			s.pendingMarks.add(m.conn.agent.ID, m)
		default:
			byOrg[m.conn.agent.OrgID] = append(byOrg[m.conn.agent.OrgID], m)
		}
	}
	var errs []error
	for orgID, list := range byOrg {
		for start := 0; start < len(list); start += s.settings.MaxBatch {
			sent := map[string]string{}
			for _, m := range list[start:min(start+s.settings.MaxBatch, len(list))] {
				sent[m.conn.agent.ServerID] = m.hash
			}
			if err := s.settings.Store.RecordPoliciesSent(ctx, orgID, sent); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// answered says whether the agent reported a status for this hash on this connection.
func (c *agentConnection) answered(hash string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reportedKnow && c.reportedHash == hash
}

// send writes the pushes on sendWorkers goroutines and waits for them.
func (s *Server) send(targets []pushTarget) {
	work := make(chan pushTarget)
	var wg sync.WaitGroup
	for range min(sendWorkers, len(targets)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range work {
				t.conn.sendPolicy(t.hash, t.remote, s.settings.DatabaseTimeout)
			}
		}()
	}
	for _, t := range targets {
		work <- t
	}
	close(work)
	wg.Wait()
}

// lacks says whether the connection should be sent the target policy: it can take pushes, has
// said hello (its first message), and neither reported nor was sent this hash.
func (c *agentConnection) lacks(target store.PolicyTarget) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.instanceUID == nil || !c.acceptsPush {
		return false
	}
	if !c.reportedKnow {
		c.reportedHash, c.reportedKnow = target.ReportedHash, true
	}
	return target.Policy.Hash != c.reportedHash && target.Policy.Hash != c.sentHash
}

// sendPolicy pushes the policy over the WebSocket unless another push got there first.
func (c *agentConnection) sendPolicy(hash string, remote *protobufs.AgentRemoteConfig, timeout time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sentHash == hash || c.reportedHash == hash {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := c.conn.Send(ctx, &protobufs.ServerToAgent{InstanceUid: c.instanceUID, RemoteConfig: remote}); err != nil {
		c.log.Warn("could not push the policy; the agent gets it when it reconnects", "error", err)
		_ = c.conn.Disconnect()
		return
	}
	c.sentHash, c.sentBody = hash, remote.GetConfig().GetConfigMap()[PolicyConfigName].GetBody()
	c.log.Debug("sent policy", "hash", hash)
	c.server.settings.Callbacks.OnPolicySent(c.agent.ServerID, hash)
}

// remoteConfig is the RemoteConfig message carrying the policy; nil when its hash is not hex.
func remoteConfig(policy store.EffectivePolicy) *protobufs.AgentRemoteConfig {
	hash, err := hex.DecodeString(policy.Hash)
	if err != nil {
		return nil
	}
	return &protobufs.AgentRemoteConfig{
		ConfigHash: hash,
		Config: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
			PolicyConfigName: {Body: policy.Document, ContentType: "application/json"},
		}},
	}
}
