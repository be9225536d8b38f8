package export

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

// WithCapabilities adds spindle.agent.capabilities (a string slice naming what works on this
// host, e.g. ebpf.block_latency) to the base resource, so the console can show it per server.
func WithCapabilities(base *resource.Resource, available []string) *resource.Resource {
	merged, err := resource.Merge(base, resource.NewSchemaless(
		attribute.StringSlice(catalogue.ResourceCapabilities, available)))
	if err != nil { // only on conflicting schema URLs, and both are schemaless
		return base
	}
	return merged
}
