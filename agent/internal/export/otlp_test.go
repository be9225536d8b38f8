package export

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
)

// captureTransport keeps the body the official exporter would have sent.
type captureTransport struct{ body []byte }

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	defer req.Body.Close()
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	if req.Header.Get("Content-Encoding") != "gzip" {
		c.body = raw
	} else if c.body, err = gunzip(raw); err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// TestRequestMatchesOfficialExporter encodes one batch of every kind of point the agent records
// (int and float counters and gauges, a pre-aggregated histogram, string and int attributes, the
// batch resource) with the agent's encoder and with the official otlpmetrichttp exporter (which
// the agent no longer links, see otlp.go), decodes both as the gateway does, with the collector
// service's message, and requires the same request.
func TestRequestMatchesOfficialExporter(t *testing.T) {
	h := newHarness(t)
	sink := h.pipeline.Sink()
	dev := attribute.String(catalogue.AttrDevice, "sda")
	read := attribute.String(catalogue.AttrDirection, catalogue.DirectionRead)
	sink.AddInt(catalogue.DiskOperations, 600, dev, read)
	sink.AddFloat(catalogue.DiskIOTime, 7.25, dev)
	sink.SetInt(catalogue.DiskPendingOperations, 3, dev)
	sink.SetFloat(catalogue.CollectorDuration, 0.0125, attribute.String("spindle.collector", "diskstats"))
	counts := make([]uint64, catalogue.LatencyBucketCount)
	counts[7], counts[27] = 3, 1
	sink.AddHistogram(catalogue.DiskIOLatency, collector.HistogramDelta{BucketCounts: counts, Sum: 70.0005}, dev, read)

	ctx := context.Background()
	var rm metricdata.ResourceMetrics
	if err := h.pipeline.reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	appendHistograms(&rm, instrumentation.Scope{Name: meterName}, h.pipeline.sink.histograms.take())
	setInterval(&rm, time.Unix(1_700_000_000, 5), time.Unix(1_700_000_010, 7))
	var err error
	if rm.Resource, err = batchResource(h.pipeline.base, 99); err != nil {
		t.Fatal(err)
	}
	if pointCount(&rm) != 5 {
		t.Fatalf("%d points collected, want 5", pointCount(&rm))
	}

	ours, err := encodeRequest(&rm)
	if err != nil {
		t.Fatal(err)
	}
	oursRaw, err := gunzip(ours)
	if err != nil {
		t.Fatalf("the agent's body is not gzip: %v", err)
	}
	capture := &captureTransport{}
	official, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL("http://capture.invalid/v1/metrics"),
		otlpmetrichttp.WithHTTPClient(&http.Client{Transport: capture}), otlpmetrichttp.WithCompression(otlpmetrichttp.GzipCompression),
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}),
		otlpmetrichttp.WithTemporalitySelector(func(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.DeltaTemporality }))
	if err != nil {
		t.Fatal(err)
	}
	if err := official.Export(ctx, &rm); err != nil {
		t.Fatal(err)
	}

	var got, want colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(oursRaw, &got); err != nil {
		t.Fatalf("the agent's body is not an ExportMetricsServiceRequest: %v", err)
	}
	if err := proto.Unmarshal(capture.body, &want); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&got, &want) {
		t.Fatalf("the agent's request differs from the official exporter's:\n got  %v\n want %v", &got, &want)
	}
	// Same library, same messages: the wire bytes match too.
	if !bytes.Equal(oursRaw, capture.body) {
		t.Fatalf("equal messages but different bytes (%d vs %d)", len(oursRaw), len(capture.body))
	}
}
