package ingest

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// AgentCredentialAttribute carries an agent's own credential in each ResourceMetrics it sends
// through an OpenTelemetry Collector (docs/agent-protocol.md, "Through a Collector"): the
// Collector merges many agents' exports into one request under its relay credential, so each
// resource proves its agent itself. The gateway removes it before anything else reads the
// resource; it is never logged or stored.
const AgentCredentialAttribute = "spindle.agent.credential"

// TakeAgentCredential removes the agent credential from a resource and returns it ("" when the
// resource carries none, or carries something other than a string).
func TakeAgentCredential(resource pcommon.Resource) string {
	attrs := resource.Attributes()
	v, ok := attrs.Get(AgentCredentialAttribute)
	if !ok {
		return ""
	}
	secret := ""
	if v.Type() == pcommon.ValueTypeStr {
		secret = v.Str()
	}
	attrs.Remove(AgentCredentialAttribute)
	return secret
}

// SplitResources returns one export per ResourceMetrics, so each can be bounded and mapped on
// its own: in a relayed request one agent's bad batch must not cost the others theirs.
func SplitResources(md pmetric.Metrics) []pmetric.Metrics {
	resources := md.ResourceMetrics()
	out := make([]pmetric.Metrics, resources.Len())
	for i := range out {
		out[i] = pmetric.NewMetrics()
		resources.At(i).CopyTo(out[i].ResourceMetrics().AppendEmpty())
	}
	return out
}

// PointCount is how many data points an export holds (a refusal's rejected_data_points).
func PointCount(md pmetric.Metrics) int64 {
	return int64(md.DataPointCount())
}
