// Package opamp is the agent's OpAMP client (open-telemetry/opamp-go): it reports the agent's
// description, capabilities, health and effective policy to the gateway at /v1/opamp, receives
// the server's effective policy as RemoteConfig, applies it through policystate and reports
// APPLIED or FAILED with the reason. WebSocket first; when the gateway (or a proxy in front of
// it) keeps refusing the upgrade, it polls over plain HTTP and tries WebSocket again later.
// docs/agent-protocol.md, "OpAMP".
package opamp

import (
	"errors"
	"log/slog"
	"time"

	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/policystate"
	"github.com/spindle-io/spindle/agent/internal/upgrade"
)

// Path is the gateway's OpAMP endpoint.
const Path = "/v1/opamp"

// PolicyConfigName is the RemoteConfig config-map entry holding the policy document.
const PolicyConfigName = "spindle-policy.json"

// CapabilitiesAttribute lists what works on this host (ebpf.block_latency, …), as on OTLP.
const CapabilitiesAttribute = "spindle.agent.capabilities"

// Settings configure the client. Gateway, Credential, AgentID, Policy and Logger are required.
type Settings struct {
	Gateway    string // base URL, http(s)://host:port
	Credential string // spa_…, sent as a bearer token on the upgrade and on every poll
	// CredentialFunc, when set, is read for every upgrade and poll instead of Credential, so a
	// renewed credential is used from the next connection or poll on (credential.Holder.Secret).
	CredentialFunc func() string
	AgentID        string // from enrolment; the OpAMP instance uid is derived from it
	Version        string
	Host           hostinfo.Info
	// Capabilities names what works on this host; reported in the agent description.
	Capabilities []string
	Policy       *policystate.Manager
	Logger       *slog.Logger
	// Upgrades, when set, takes the versions the gateway offers (AcceptsPackages) and reports on
	// them (ReportsPackageStatuses); nil leaves both capabilities out.
	Upgrades *upgrade.Manager

	// HeartbeatInterval keeps a WebSocket alive and the gateway's "last seen" fresh. Default 30 s.
	HeartbeatInterval time.Duration
	// PollInterval is how often the HTTP fallback asks for news (also its policy latency). Default 10 s.
	PollInterval time.Duration
	// FallbackAfter consecutive refused WebSocket upgrades switch to HTTP polling. Default 3.
	FallbackAfter int
	// RetryWebSocketAfter is how long HTTP polling lasts before WebSocket is tried again. Default 10 min.
	RetryWebSocketAfter time.Duration
}

func (s *Settings) validate() error {
	if s.CredentialFunc == nil {
		fixed := s.Credential
		s.CredentialFunc = func() string { return fixed }
	}
	if s.Gateway == "" || s.CredentialFunc() == "" || s.AgentID == "" || s.Policy == nil || s.Logger == nil {
		return errors.New("opamp: Gateway, Credential (or CredentialFunc), AgentID, Policy and Logger are required")
	}
	if s.HeartbeatInterval <= 0 {
		s.HeartbeatInterval = 30 * time.Second
	}
	if s.PollInterval <= 0 {
		s.PollInterval = 10 * time.Second
	}
	if s.FallbackAfter <= 0 {
		s.FallbackAfter = 3
	}
	if s.RetryWebSocketAfter <= 0 {
		s.RetryWebSocketAfter = 10 * time.Minute
	}
	return nil
}
