package export

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
)

// Resource is what every batch says about the server: the OTLP resource's attributes.
type Resource struct{ set attribute.Set }

// Set returns the resource's attributes, sorted by key.
func (r Resource) Set() attribute.Set { return r.set }

// with returns r with kvs added; a key r already has takes the value in kvs, as OpenTelemetry's
// resource merge gives the update precedence. Attributes without a key or value are dropped,
// as the SDK's resources dropped them.
func (r Resource) with(kvs ...attribute.KeyValue) Resource {
	all := append(r.set.ToSlice(), kvs...)
	set, _ := attribute.NewSetWithFiltered(all, attribute.KeyValue.Valid)
	return Resource{set}
}

// BaseResource is what the gateway records about the server (docs/agent-protocol.md); every
// batch adds spindle.batch.seq to it.
func BaseResource(host hostinfo.Info, agentVersion, agentID string) Resource {
	return Resource{}.with(
		attribute.String("host.name", host.Hostname),
		attribute.String("os.type", host.OS),
		attribute.String("os.description", host.OSVersion),
		attribute.String("host.arch", host.Arch),
		attribute.String("service.name", catalogue.ResourceServiceName),
		attribute.String("service.version", agentVersion),
		attribute.String(catalogue.ResourceKernel, host.Kernel),
		attribute.String(catalogue.ResourceAgentID, agentID),
	)
}

func batchResource(base Resource, seq uint64) Resource {
	return base.with(attribute.Int64(catalogue.ResourceBatchSeq, int64(seq)))
}
