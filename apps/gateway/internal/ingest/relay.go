package ingest

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// AgentCredentialAttribute carries an agent's own credential in each ResourceMetrics it sends
// through an OpenTelemetry Collector (docs/agent-protocol.md, "Through a Collector"): the
// Collector merges many agents' exports into one request under its relay credential, so each
// resource proves its agent itself. The gateway removes it before anything else reads the
// resource; it is never logged or stored.
const AgentCredentialAttribute = "spindle.agent.credential"

// TakeAgentCredential removes the agent credential from a resource's attributes and returns it
// ("" when the resource carries none, or carries something other than a string).
func TakeAgentCredential(resource *otlp.Attributes) string {
	v, ok := resource.Get(AgentCredentialAttribute)
	if !ok {
		return ""
	}
	secret := ""
	if v.Type == pcommon.ValueTypeStr {
		secret = v.Str
	}
	// Removed from a copy: the attributes may share their backing array with other resources'.
	*resource = slices.Clone(*resource)
	resource.Remove(AgentCredentialAttribute)
	return secret
}

// SplitResources returns one export per ResourceMetrics, so each can be bounded and mapped on
// its own: in a relayed request one agent's bad batch must not cost the others theirs.
func SplitResources(md *otlp.Metrics) []*otlp.Metrics {
	out := make([]*otlp.Metrics, len(md.ResourceMetrics))
	for i := range out {
		out[i] = &otlp.Metrics{ResourceMetrics: md.ResourceMetrics[i : i+1 : i+1]}
	}
	return out
}

// PointCount is how many data points an export holds (a refusal's rejected_data_points).
func PointCount(md *otlp.Metrics) int64 {
	return int64(md.PointCount())
}
