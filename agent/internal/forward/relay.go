package forward

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protowire"
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
	out, err := setCredential(raw, credential)
	if err != nil {
		return nil, err
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

// setCredential rewrites an ExportMetricsServiceRequest, resource by resource. The request is
// field 1 (repeated ResourceMetrics) and nothing else; it is walked with protowire rather than
// decoded through the OTLP collector service package, which would link gRPC into the agent.
// Fields this version does not know are kept as they are.
func setCredential(raw []byte, credential string) ([]byte, error) {
	out := make([]byte, 0, len(raw)+64)
	for len(raw) > 0 {
		num, typ, n := protowire.ConsumeTag(raw)
		if n < 0 {
			return nil, fmt.Errorf("decode spooled batch: %w", protowire.ParseError(n))
		}
		field := protowire.ConsumeFieldValue(num, typ, raw[n:])
		if field < 0 {
			return nil, fmt.Errorf("decode spooled batch: %w", protowire.ParseError(field))
		}
		if num != 1 || typ != protowire.BytesType {
			out = append(out, raw[:n+field]...)
			raw = raw[n+field:]
			continue
		}
		body, _ := protowire.ConsumeBytes(raw[n:])
		raw = raw[n+field:]
		rm := &metricspb.ResourceMetrics{}
		if err := proto.Unmarshal(body, rm); err != nil {
			return nil, fmt.Errorf("decode spooled batch: %w", err)
		}
		if rm.Resource != nil {
			attrs := rm.Resource.Attributes[:0]
			for _, kv := range rm.Resource.Attributes {
				if kv.Key != AgentCredentialAttribute {
					attrs = append(attrs, kv)
				}
			}
			rm.Resource.Attributes = append(attrs, &commonpb.KeyValue{Key: AgentCredentialAttribute,
				Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: credential}}})
		}
		encoded, err := proto.Marshal(rm)
		if err != nil {
			return nil, fmt.Errorf("encode batch: %w", err)
		}
		out = protowire.AppendTag(out, 1, protowire.BytesType)
		out = protowire.AppendBytes(out, encoded)
	}
	return out, nil
}
