package opamp

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"
	servertypes "github.com/open-telemetry/opamp-go/server/types"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// PolicyConfigName is the RemoteConfig config-map entry holding the policy document.
const PolicyConfigName = "spindle-policy.json"

// agentConnection is one OpAMP connection: a WebSocket for as long as it lasts, or a single
// plain-HTTP poll. What it remembers (instance uid, hashes) only saves database round trips;
// the database stays the truth shared by every gateway.
type agentConnection struct {
	server    *Server
	agent     store.Agent
	webSocket bool
	log       *slog.Logger

	mu             sync.Mutex
	conn           servertypes.Connection
	instanceUID    []byte
	reportedHash   string // last_remote_config_hash from the agent; "" unknown
	reportedKnow   bool
	sentHash       string // last RemoteConfig sent on this connection
	sentBody       []byte // its document (shared with every connection sent the same policy)
	effectiveHash  string // the sent policy last recorded as the agent's effective config
	acceptsPush    bool   // AcceptsRemoteConfig; assumed until the agent says otherwise
	capabilityBits uint64 // the capabilities last reported on this connection

	// Upgrades (upgrades.go): what the agent said about itself, and the offer sent here.
	acceptsPackages                  bool
	agentVersion, agentOS, agentArch string
	offeredHash                      string
}

func newAgentConnection(s *Server, agent store.Agent, webSocket bool) *agentConnection {
	transport := "http"
	if webSocket {
		transport = "websocket"
	}
	return &agentConnection{server: s, agent: agent, webSocket: webSocket, acceptsPush: true,
		log: s.settings.Logger.With("org_id", agent.OrgID, "server_id", agent.ServerID, "agent_id", agent.ID, "transport", transport)}
}

func (c *agentConnection) onConnected(_ context.Context, conn servertypes.Connection) {
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
	if c.webSocket {
		// Checked again here, atomically with the add: several upgrades of one credential can
		// pass onConnecting's check at once.
		if n := c.server.registry.add(c.agent.ServerID, c); n > c.server.settings.MaxConnectionsPerAgent {
			c.log.Warn("OpAMP connection closed: too many connections for one credential", "limit", c.server.settings.MaxConnectionsPerAgent)
			_ = conn.Disconnect()
			return
		}
		c.log.Info("OpAMP agent connected")
	}
}

func (c *agentConnection) onClose(servertypes.Connection) {
	if c.webSocket {
		c.server.registry.remove(c.agent.ServerID, c)
		c.log.Info("OpAMP agent disconnected")
	}
}

func (c *agentConnection) onReadError(_ servertypes.Connection, _ int, _ []byte, err error) {
	c.log.Debug("OpAMP message unreadable", "error", err)
}

// onMessage queues what the agent reports for the next batch write and, on a plain-HTTP poll,
// answers with its policy when the agent's last-received hash differs from the effective one.
// A WebSocket gets its policy from the fan-out instead (on its first message and on every
// change), so a heartbeat costs no query at all.
func (c *agentConnection) onMessage(_ context.Context, conn servertypes.Connection, msg *protobufs.AgentToServer) *protobufs.ServerToAgent {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := c.server.dbContext()
	defer cancel()
	response := &protobufs.ServerToAgent{InstanceUid: msg.GetInstanceUid()}
	first := c.instanceUID == nil
	c.instanceUID = msg.GetInstanceUid()

	// A WebSocket lives for hours: a credential rotated or revoked meanwhile ends it. The
	// credential sweep keeps valid ones cached, so this costs no query.
	if c.webSocket {
		if _, err := c.server.settings.Credentials.Check(ctx, c.agent.CredentialHash); err != nil {
			if errors.Is(err, store.ErrUnknownCredential) || errors.Is(err, store.ErrRevokedCredential) {
				c.log.Info("OpAMP connection closed: credential no longer valid", "error", err)
				_ = conn.Disconnect()
				return nil
			}
			c.log.Warn("OpAMP message not recorded: database unavailable", "error", err)
			return nil
		}
	}
	if msg.GetAgentDisconnect() != nil {
		return nil
	}
	if msg.GetCapabilities() != 0 {
		c.acceptsPush = msg.GetCapabilities()&uint64(protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig) != 0
	}
	c.noteAgent(msg)
	if statuses := msg.GetPackageStatuses(); statuses != nil {
		c.recordPackageStatuses(ctx, statuses)
	}
	c.queueUpdate(ctx, msg)
	if c.webSocket && msg.GetAgentDescription() == nil && msg.GetSequenceNum() <= 1 {
		// A first message without its state (should not happen): ask for everything once.
		response.Flags |= uint64(protobufs.ServerToAgentFlags_ServerToAgentFlags_ReportFullState)
	}
	if c.webSocket {
		if first {
			c.server.fanout.add(c.agent.ServerID)
			c.server.upgrades.add(c.agent.ServerID)
			return response // the first answer also carries opamp-go's CustomCapabilities
		}
		if response.Flags != 0 {
			return response
		}
		// Nothing to say: over a WebSocket either side speaks when it has news (opamp-go sends no
		// frame for nil), and an empty answer to every heartbeat and confirmation would cost a
		// write here and a read, a decode and a callback in the agent, for 10,000 agents at once
		// after a fleet-wide change.
		return nil
	}
	response.RemoteConfig = c.policyToSend(ctx)
	response.PackagesAvailable = c.pollUpgrade(ctx)
	return response
}

// queueUpdate hands what a WebSocket message says to the batch writers: a RemoteConfigStatus to
// the policy-status writer (within ReportLinger), so the confirmations a policy change waits for
// never queue behind other rows; everything else (the agent seen, its description, health,
// effective config) to the writer of agents' and servers' rows (every SeenFlushInterval). A
// plain-HTTP poll is written at once: the agent's next poll may reach another gateway, which
// must see what this one said. Called with c.mu held.
func (c *agentConnection) queueUpdate(ctx context.Context, msg *protobufs.AgentToServer) {
	now := time.Now()
	update := store.AgentUpdate{Agent: c.agent, SeenAt: now, Report: agentReport(msg, sentPolicy{hash: c.sentHash, body: c.sentBody})}
	// opamp-go repeats the capability bits in every message; only a change is news.
	if bits := msg.GetCapabilities(); bits != 0 {
		if bits == c.capabilityBits && update.Report.Capabilities != nil {
			delete(update.Report.Capabilities, "opamp")
			if len(update.Report.Capabilities) == 0 {
				update.Report.Capabilities = nil
			}
		}
		c.capabilityBits = bits
	}
	// An effective config already recorded as the policy sent here changes nothing.
	if effective := update.Report.EffectiveConfig; effective != nil {
		hash, _ := effective["hash"].(string)
		if hash != "" && hash == c.effectiveHash {
			update.Report.EffectiveConfig = nil
		}
		c.effectiveHash = hash // "" after a document that is not the policy sent
	}
	if status := msg.GetRemoteConfigStatus(); status != nil && len(status.GetLastRemoteConfigHash()) > 0 {
		report := policyReport(status)
		c.reportedHash, c.reportedKnow = report.Hash, true
		update.Policy = &store.PolicyUpdate{Latest: report, ReportedAt: now}
		if report.State == store.PolicyApplied {
			update.Policy.AppliedHash, update.Policy.AppliedAt = report.Hash, now
		}
		if report.Hash == c.sentHash {
			update.Policy.Sent = report.Hash
		}
		c.logReport(report)
	}
	if !c.webSocket {
		if err := c.server.settings.Store.RecordAgentUpdates(ctx, []store.AgentUpdate{update}); err != nil {
			c.log.Warn("could not record the agent's OpAMP report", "error", err)
		}
		return
	}
	if update.Policy != nil {
		c.server.statuses.add(c.agent.ID, store.AgentUpdate{Agent: c.agent, Policy: update.Policy})
	}
	update.Policy = nil
	c.server.seen.add(c.agent.ID, update)
}

// policyToSend returns the RemoteConfig to send on a plain-HTTP poll, or nil when the agent
// already has it. Called with c.mu held.
func (c *agentConnection) policyToSend(ctx context.Context) *protobufs.AgentRemoteConfig {
	if !c.acceptsPush {
		return nil
	}
	if !c.reportedKnow {
		hash, err := c.server.settings.Store.ReportedPolicyHash(ctx, c.agent)
		if err != nil {
			c.log.Warn("could not read the agent's policy status", "error", err)
			return nil
		}
		c.reportedHash, c.reportedKnow = hash, true
	}
	policy, err := c.server.settings.Store.EffectivePolicy(ctx, c.agent)
	if errors.Is(err, store.ErrNoEffectivePolicy) {
		return nil
	}
	if err != nil {
		c.log.Warn("could not read the effective policy", "error", err)
		return nil
	}
	if policy.Hash == c.reportedHash || policy.Hash == c.sentHash {
		return nil
	}
	remote := remoteConfig(policy)
	if remote == nil {
		c.log.Error("effective policy hash is not hex", "hash", policy.Hash)
		return nil
	}
	if err := c.server.settings.Store.RecordPolicySent(ctx, c.agent, policy.Hash); err != nil {
		c.log.Warn("could not record the policy sent", "error", err)
	}
	c.sentHash, c.sentBody = policy.Hash, policy.Document
	c.log.Info("sending policy", "hash", policy.Hash)
	c.server.settings.Callbacks.OnPolicySent(c.agent.ServerID, policy.Hash)
	return remote
}

func (c *agentConnection) logReport(report store.PolicyReport) {
	switch report.State {
	case store.PolicyFailed:
		c.log.Warn("agent refused the policy", "hash", report.Hash, "message", report.Message)
	case store.PolicyApplied:
		// Debug: a fleet-wide change would write one line per agent.
		c.log.Debug("agent applied the policy", "hash", report.Hash)
	}
}
