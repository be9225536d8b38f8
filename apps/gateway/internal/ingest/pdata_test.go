package ingest

import (
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// The tests build their exports with pdata (package otlpfixture). fromPdata is such an export
// as the gateway receives it: encoded by pdata, decoded by otlp.Decode.
func fromPdata(md pmetric.Metrics) *otlp.Metrics {
	decoded, err := otlp.Decode(otlpfixture.Proto(md))
	if err != nil {
		panic(err) // pdata's encoding of a pdata export is always decodable
	}
	return decoded
}

// mapPdata maps a pdata-built export through the gateway's path.
func mapPdata(md pmetric.Metrics) (Request, error) {
	return Map(fromPdata(md))
}
