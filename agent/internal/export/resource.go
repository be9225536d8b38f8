package export

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
)

// BaseResource is what the gateway records about the server (docs/agent-protocol.md); every
// batch adds spindle.batch.seq to it.
func BaseResource(host hostinfo.Info, agentVersion, agentID string) *resource.Resource {
	return resource.NewSchemaless(
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

func batchResource(base *resource.Resource, seq uint64) (*resource.Resource, error) {
	return resource.Merge(base, resource.NewSchemaless(attribute.Int64(catalogue.ResourceBatchSeq, int64(seq))))
}
