package opamp

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// maxHostFieldRunes bounds what an attribute can put in a servers column (as for OTLP).
const maxHostFieldRunes = 255

// maxMessageRunes bounds a failure message stored for the console.
const maxMessageRunes = 4000

// maxCapabilities bounds the capability list stored for a server: the agent has about a dozen;
// an agent that reports more is cut to this many, and the report says so.
const maxCapabilities = 64

// MaxEffectiveConfigBytes bounds the effective policy document stored for the console; a policy
// the console can author is far smaller. A larger one is not stored: the report says it was refused.
const MaxEffectiveConfigBytes = 256 << 10

// InstallMethodAttribute and UpgradeAttribute say how the agent was installed and whether it
// takes upgrades over OpAMP ("remote", or why not); agent/internal/opamp/packages.go sets them.
const (
	InstallMethodAttribute = "spindle.agent.install_method"
	UpgradeAttribute       = "spindle.agent.upgrade"
)

// CapabilitiesAttribute lists what works on the agent's host (ebpf.block_latency, …), the same
// attribute the agent puts on its OTLP resource.
const CapabilitiesAttribute = "spindle.agent.capabilities"

// sentPolicy is the policy a connection last sent: its hash and the document's exact bytes.
type sentPolicy struct {
	hash string
	body []byte
}

// agentReport maps the parts of an AgentToServer message that describe the agent; what the
// message leaves out (unchanged since the last one) stays nil. An effective config that is
// byte for byte the policy sent on this connection is recorded by its hash: the document is in
// server_effective_policies already, and 10,000 copies of it would be written for nothing.
func agentReport(msg *protobufs.AgentToServer, sent sentPolicy) store.AgentReport {
	var report store.AgentReport
	capabilities := map[string]any{}
	if d := msg.GetAgentDescription(); d != nil {
		attrs := map[string]*protobufs.AnyValue{}
		for _, kv := range append(append([]*protobufs.KeyValue{}, d.GetIdentifyingAttributes()...), d.GetNonIdentifyingAttributes()...) {
			attrs[kv.GetKey()] = kv.GetValue()
		}
		text := func(key string) string { return truncate(attrs[key].GetStringValue(), maxHostFieldRunes) }
		report.Host = &telemetry.HostInfo{
			Hostname: text("host.name"), OS: text("os.type"), OSVersion: text("os.description"),
			Kernel: text("spindle.os.kernel"), Arch: text("host.arch"), AgentVersion: text("service.version"),
		}
		if v, ok := attrs[CapabilitiesAttribute]; ok {
			available := []string{}
			items := v.GetArrayValue().GetValues()
			if len(items) > maxCapabilities {
				capabilities["truncated"] = len(items)
				items = items[:maxCapabilities]
			}
			for _, item := range items {
				available = append(available, truncate(item.GetStringValue(), maxHostFieldRunes))
			}
			sort.Strings(available)
			capabilities["available"] = available
		}
		// Whether the agent replaces its own binary when offered a version (upgrades.go), and
		// how it was installed: the console says how to upgrade the others.
		if method, ok := attrs[InstallMethodAttribute]; ok {
			upgrade := attrs[UpgradeAttribute].GetStringValue()
			capabilities["upgrade"] = map[string]any{
				"installMethod": truncate(method.GetStringValue(), maxHostFieldRunes),
				"remote":        upgrade == "remote",
				"reason":        truncate(strings.TrimPrefix(upgrade, "remote"), maxMessageRunes),
			}
		}
	}
	if bits := msg.GetCapabilities(); bits != 0 {
		capabilities["opamp"] = capabilityNames(bits)
	}
	if len(capabilities) > 0 {
		report.Capabilities = capabilities
	}
	if h := msg.GetHealth(); h != nil {
		report.Health = map[string]any{
			"healthy":    h.GetHealthy(),
			"status":     truncate(h.GetStatus(), maxHostFieldRunes),
			"lastError":  truncate(h.GetLastError(), maxMessageRunes),
			"startedAt":  unixNanoTime(h.GetStartTimeUnixNano()),
			"reportedAt": time.Now().UTC().Format(time.RFC3339Nano),
		}
	}
	if ec := msg.GetEffectiveConfig(); ec != nil {
		effective := map[string]any{"reportedAt": time.Now().UTC().Format(time.RFC3339Nano)}
		if file := ec.GetConfigMap().GetConfigMap()[PolicyConfigName]; file != nil {
			if body := file.GetBody(); sent.hash != "" && bytes.Equal(body, sent.body) {
				effective["hash"] = sent.hash
			} else if len(body) > MaxEffectiveConfigBytes {
				effective["refused"] = fmt.Sprintf("the reported document is %d bytes; the gateway stores at most %d", len(body), MaxEffectiveConfigBytes)
			} else {
				effective["document"] = effectiveConfigJSON(body)
			}
		}
		report.EffectiveConfig = effective
	}
	return report
}

// policyReport maps RemoteConfigStatus onto server_policy_status.
func policyReport(status *protobufs.RemoteConfigStatus) store.PolicyReport {
	report := store.PolicyReport{Hash: hex.EncodeToString(status.GetLastRemoteConfigHash()), State: store.PolicyPending}
	switch status.GetStatus() {
	case protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED:
		report.State = store.PolicyApplied
	case protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED:
		report.State = store.PolicyFailed
		report.Message = truncate(status.GetErrorMessage(), maxMessageRunes)
		if report.Message == "" {
			report.Message = "the agent refused the policy without saying why; see the agent's log"
		}
	}
	return report
}

var capabilityBits = []struct {
	bit  protobufs.AgentCapabilities
	name string
}{
	{protobufs.AgentCapabilities_AgentCapabilities_ReportsStatus, "ReportsStatus"},
	{protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig, "AcceptsRemoteConfig"},
	{protobufs.AgentCapabilities_AgentCapabilities_ReportsEffectiveConfig, "ReportsEffectiveConfig"},
	{protobufs.AgentCapabilities_AgentCapabilities_ReportsHealth, "ReportsHealth"},
	{protobufs.AgentCapabilities_AgentCapabilities_ReportsRemoteConfig, "ReportsRemoteConfig"},
	{protobufs.AgentCapabilities_AgentCapabilities_ReportsHeartbeat, "ReportsHeartbeat"},
	{protobufs.AgentCapabilities_AgentCapabilities_AcceptsPackages, "AcceptsPackages"},
	{protobufs.AgentCapabilities_AgentCapabilities_ReportsPackageStatuses, "ReportsPackageStatuses"},
}

func capabilityNames(bits uint64) []string {
	names := []string{}
	for _, c := range capabilityBits {
		if bits&uint64(c.bit) != 0 {
			names = append(names, c.name)
		}
	}
	return names
}

func unixNanoTime(n uint64) any {
	if n == 0 {
		return nil
	}
	return time.Unix(0, int64(n)).UTC().Format(time.RFC3339Nano)
}

func truncate(s string, limit int) string {
	s = strings.ToValidUTF8(s, "�")
	if runes := []rune(s); len(runes) > limit {
		return string(runes[:limit])
	}
	return s
}
