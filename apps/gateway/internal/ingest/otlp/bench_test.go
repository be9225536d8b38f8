package otlp_test

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// BenchmarkDecode compares the decoder with pdata's on the agent fixture (allocations are the
// figure to read on a busy machine).
func BenchmarkDecode(b *testing.B) {
	body := otlpfixture.Proto(fixtures()["agent"])
	b.Run("otlp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := otlp.Decode(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pdata", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := pmetricotlp.NewExportRequest().UnmarshalProto(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
