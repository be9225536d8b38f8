package export

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

// WithCapabilities adds spindle.agent.capabilities (a string slice naming what works on this
// host, e.g. ebpf.block_latency) to the base resource, so the console can show it per server.
func WithCapabilities(base Resource, available []string) Resource {
	return base.with(attribute.StringSlice(catalogue.ResourceCapabilities, available))
}
