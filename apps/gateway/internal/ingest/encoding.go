// Package ingest turns an OTLP ExportMetricsServiceRequest into the rows of docs/metrics.md.
// Every error it returns means the request is malformed and can never succeed as sent.
package ingest

import (
	"fmt"
	"mime"

	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// Encoding is one of the two OTLP/HTTP payload encodings.
type Encoding int

const (
	Protobuf Encoding = iota + 1
	JSON
)

// EncodingForContentType maps a Content-Type header (parameters such as charset allowed) to an
// encoding; ok is false for anything OTLP/HTTP does not define.
func EncodingForContentType(contentType string) (enc Encoding, ok bool) {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, false
	}
	switch mediaType {
	case "application/x-protobuf":
		return Protobuf, true
	case "application/json":
		return JSON, true
	}
	return 0, false
}

// ContentType is the media type responses in this encoding carry.
func (e Encoding) ContentType() string {
	if e == JSON {
		return "application/json"
	}
	return "application/x-protobuf"
}

// Decode parses an ExportMetricsServiceRequest into the model the mapping reads. Protobuf, the
// agent's encoding, is decoded straight into it (package otlp); JSON goes through pdata's JSON
// decoder and back to protobuf first, so both encodings meet the same decoder.
func Decode(body []byte, enc Encoding) (*otlp.Metrics, error) {
	switch enc {
	case Protobuf:
	case JSON:
		request := pmetricotlp.NewExportRequest()
		if err := request.UnmarshalJSON(body); err != nil {
			return nil, fmt.Errorf("the gateway could not decode the OTLP payload: %w", err)
		}
		var err error
		if body, err = request.MarshalProto(); err != nil {
			return nil, fmt.Errorf("the gateway could not decode the OTLP payload: %w", err)
		}
	default:
		return nil, fmt.Errorf("unknown encoding %d", enc)
	}
	md, err := otlp.Decode(body)
	if err != nil {
		return nil, fmt.Errorf("the gateway could not decode the OTLP payload: %w", err)
	}
	return md, nil
}

// EncodeSuccess is the ExportMetricsServiceResponse for a fully accepted request.
func EncodeSuccess(enc Encoding) ([]byte, error) {
	response := pmetricotlp.NewExportResponse()
	if enc == JSON {
		return response.MarshalJSON()
	}
	return response.MarshalProto()
}

// EncodePartialSuccess is a success answer whose partial_success carries a message for the
// agent (nothing rejected: the gateway acknowledges the data, see docs/agent-protocol.md).
func EncodePartialSuccess(enc Encoding, message string) ([]byte, error) {
	response := pmetricotlp.NewExportResponse()
	response.PartialSuccess().SetErrorMessage(message)
	if enc == JSON {
		return response.MarshalJSON()
	}
	return response.MarshalProto()
}

// EncodeRejected is a success answer whose partial_success says how many data points were
// refused for good and why: the OTLP exporter of a Collector logs it and does not retry them.
func EncodeRejected(enc Encoding, rejectedPoints int64, message string) ([]byte, error) {
	response := pmetricotlp.NewExportResponse()
	response.PartialSuccess().SetRejectedDataPoints(rejectedPoints)
	response.PartialSuccess().SetErrorMessage(message)
	if enc == JSON {
		return response.MarshalJSON()
	}
	return response.MarshalProto()
}
