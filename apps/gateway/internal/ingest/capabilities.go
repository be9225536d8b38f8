package ingest

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// CapabilitiesAttribute names what works on the agent's host (docs/metrics.md), a string slice.
const CapabilitiesAttribute = "spindle.agent.capabilities"

// Bounds on what a resource attribute can put in agents.telemetry_capabilities: longer lists
// and names are cut, as host metadata is, rather than costing a batch of telemetry.
const (
	maxCapabilities     = 64
	maxCapabilityLength = 64
)

// capabilities returns the reported list, or nil when the resource does not carry it.
func capabilities(resource otlp.Attributes) ([]string, error) {
	v, ok := resource.Get(CapabilitiesAttribute)
	if !ok {
		return nil, nil
	}
	if v.Type != pcommon.ValueTypeSlice {
		return nil, fmt.Errorf("resource attribute %s is a %s; it must be a list of strings such as [\"ebpf.block_latency\"]", CapabilitiesAttribute, v.Type)
	}
	out := []string{}
	seen := map[string]bool{}
	slice := v.Slice()
	for i := 0; i < len(slice) && len(out) < maxCapabilities; i++ {
		item := slice[i]
		if item.Type != pcommon.ValueTypeStr {
			return nil, fmt.Errorf("resource attribute %s item %d is a %s; it must be a string", CapabilitiesAttribute, i, item.Type)
		}
		name := []rune(item.Str)
		if len(name) > maxCapabilityLength {
			name = name[:maxCapabilityLength]
		}
		if len(name) == 0 || seen[string(name)] {
			continue
		}
		seen[string(name)] = true
		out = append(out, string(name))
	}
	return out, nil
}
