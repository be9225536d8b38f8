package forward

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// AgentCredentialAttribute carries the agent's credential in each ResourceMetrics sent through
// an OpenTelemetry Collector: the Collector merges many agents' exports into one request under
// its own relay credential, so the gateway checks each resource against the agent it names and
// strips the attribute before storing anything (docs/agent-protocol.md, "Through a Collector").
const AgentCredentialAttribute = "spindle.agent.credential"

// maxSpooledBatchBytes bounds a gunzipped batch (the gateway refuses larger bodies anyway).
const maxSpooledBatchBytes = 64 << 20

// withAgentCredential returns a spooled batch's body with the credential set on every resource,
// in the batch's own Content-Encoding. It is added when the batch is sent, not when it is
// spooled, so a batch spooled before a credential renewal goes out with the current credential.
func withAgentCredential(body []byte, contentEncoding, credential string) ([]byte, error) {
	raw := body
	if contentEncoding == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("read spooled batch: %w", err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, maxSpooledBatchBytes)); err != nil {
			return nil, fmt.Errorf("read spooled batch: %w", err)
		}
	}
	request := &collectorpb.ExportMetricsServiceRequest{}
	if err := proto.Unmarshal(raw, request); err != nil {
		return nil, fmt.Errorf("decode spooled batch: %w", err)
	}
	for _, rm := range request.ResourceMetrics {
		if rm.Resource == nil {
			continue
		}
		attrs := rm.Resource.Attributes[:0]
		for _, kv := range rm.Resource.Attributes {
			if kv.Key != AgentCredentialAttribute {
				attrs = append(attrs, kv)
			}
		}
		rm.Resource.Attributes = append(attrs, &commonpb.KeyValue{Key: AgentCredentialAttribute,
			Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: credential}}})
	}
	out, err := proto.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("encode batch: %w", err)
	}
	if contentEncoding != "gzip" {
		return out, nil
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(out); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
