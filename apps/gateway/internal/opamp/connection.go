package opamp

import (
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"

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

	mu           sync.Mutex
	conn         servertypes.Connection
	instanceUID  []byte
	reportedHash string // last_remote_config_hash from the agent; "" unknown
	reportedKnow bool
	sentHash     string // last RemoteConfig sent on this connection
	acceptsPush  bool   // AcceptsRemoteConfig; assumed until the agent says otherwise
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

// onMessage records what the agent reports and answers with its policy when the agent's
// last-received hash differs from the effective one.
func (c *agentConnection) onMessage(_ context.Context, conn servertypes.Connection, msg *protobufs.AgentToServer) *protobufs.ServerToAgent {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := c.server.dbContext()
	defer cancel()
	response := &protobufs.ServerToAgent{InstanceUid: msg.GetInstanceUid()}
	c.instanceUID = msg.GetInstanceUid()

	// A WebSocket lives for hours: a credential rotated or revoked meanwhile ends it.
	if c.webSocket {
		if _, err := c.server.settings.Credentials.Check(ctx, c.agent.CredentialHash); err != nil {
			if errors.Is(err, store.ErrUnknownCredential) || errors.Is(err, store.ErrRevokedCredential) {
				c.log.Info("OpAMP connection closed: credential no longer valid", "error", err)
				_ = conn.Disconnect()
				return nil
			}
			c.log.Warn("OpAMP message not recorded: database unavailable", "error", err)
			return response
		}
	}
	if msg.GetAgentDisconnect() != nil {
		return nil
	}
	if msg.GetCapabilities() != 0 {
		c.acceptsPush = msg.GetCapabilities()&uint64(protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig) != 0
	}
	if err := c.server.settings.Store.RecordAgentReport(ctx, c.agent, agentReport(msg)); err != nil {
		c.log.Warn("could not record the agent's OpAMP report", "error", err)
	}
	if status := msg.GetRemoteConfigStatus(); status != nil && len(status.GetLastRemoteConfigHash()) > 0 {
		report := policyReport(status)
		c.reportedHash, c.reportedKnow = report.Hash, true
		if err := c.server.settings.Store.RecordPolicyReport(ctx, c.agent, report); err != nil {
			c.log.Warn("could not record the agent's policy status", "error", err)
		}
		c.logReport(report)
	}
	if c.webSocket && msg.GetAgentDescription() == nil && msg.GetSequenceNum() <= 1 {
		// A first message without its state (should not happen): ask for everything once.
		response.Flags |= uint64(protobufs.ServerToAgentFlags_ServerToAgentFlags_ReportFullState)
	}
	response.RemoteConfig = c.policyToSend(ctx)
	return response
}

// policyToSend returns the RemoteConfig to send, or nil when the agent already has it.
// Called with c.mu held.
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
	hash, err := hex.DecodeString(policy.Hash)
	if err != nil {
		c.log.Error("effective policy hash is not hex", "hash", policy.Hash)
		return nil
	}
	if err := c.server.settings.Store.RecordPolicySent(ctx, c.agent, policy.Hash); err != nil {
		c.log.Warn("could not record the policy sent", "error", err)
	}
	c.sentHash = policy.Hash
	c.log.Info("sending policy", "hash", policy.Hash)
	c.server.settings.Callbacks.OnPolicySent(c.agent.ServerID, policy.Hash)
	return &protobufs.AgentRemoteConfig{
		ConfigHash: hash,
		Config: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
			PolicyConfigName: {Body: policy.Document, ContentType: "application/json"},
		}},
	}
}

// push sends the current effective policy over the WebSocket if the agent does not have it.
func (c *agentConnection) push() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil || c.instanceUID == nil {
		return // the agent's first message is still to come, and will be answered with the policy
	}
	ctx, cancel := c.server.dbContext()
	defer cancel()
	remote := c.policyToSend(ctx)
	if remote == nil {
		return
	}
	if err := c.conn.Send(ctx, &protobufs.ServerToAgent{InstanceUid: c.instanceUID, RemoteConfig: remote}); err != nil {
		c.log.Warn("could not push the policy; the agent gets it when it reconnects", "error", err)
		c.sentHash = ""
		_ = c.conn.Disconnect()
	}
}

func (c *agentConnection) logReport(report store.PolicyReport) {
	switch report.State {
	case store.PolicyFailed:
		c.log.Warn("agent refused the policy", "hash", report.Hash, "message", report.Message)
	case store.PolicyApplied:
		c.log.Info("agent applied the policy", "hash", report.Hash)
	}
}
