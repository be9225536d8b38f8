// Package export turns what collectors record into OTLP batches on the spool, with the
// official OpenTelemetry Go SDK: synchronous instruments, a ManualReader collected once per
// tick with delta temporality (so each batch covers exactly one interval), and the official
// OTLP protobuf messages for the request body (otlp.go), gzipped and written to the spool.
package export

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// meterName is the instrumentation scope of every metric the agent sends.
const meterName = "github.com/spindle-io/spindle/agent"

// Settings configure a Pipeline.
type Settings struct {
	Resource *resource.Resource // BaseResource(...)
	Spool    *spool.Spool
	Sequence *spool.Sequence
	OnError  func(error) // instrument creation problems; defaults to ignoring them
	// Now is the clock that bounds each batch's interval; default time.Now. The fault tests'
	// spool filler (spoolfill) sets a fake one to produce a day of batches in seconds.
	Now func() time.Time
}

// Pipeline owns the meter provider and reader. Flush must not be called
// concurrently with itself; Sink is safe for concurrent use.
type Pipeline struct {
	provider *sdkmetric.MeterProvider
	reader   *sdkmetric.ManualReader
	base     *resource.Resource
	sequence *spool.Sequence
	spool    *spool.Spool
	sink     *sink
	now      func() time.Time

	mu           sync.Mutex
	intervalFrom time.Time
}

func deltaEverywhere(sdkmetric.InstrumentKind) metricdata.Temporality {
	return metricdata.DeltaTemporality
}

// New builds the pipeline. The interval of the first batch starts now.
func New(ctx context.Context, s Settings) (*Pipeline, error) {
	reader := sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(deltaEverywhere))
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(s.Resource))
	onError := s.OnError
	if onError == nil {
		onError = func(error) {}
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	return &Pipeline{
		provider:     provider,
		reader:       reader,
		base:         s.Resource,
		sequence:     s.Sequence,
		spool:        s.Spool,
		sink:         newSink(provider.Meter(meterName), onError),
		now:          now,
		intervalFrom: now(),
	}, nil
}

// Sink is where collectors record.
func (p *Pipeline) Sink() collector.Sink { return p.sink }

// Flush collects everything recorded since the previous Flush into one batch, numbers it and
// writes it to the spool. It returns the batch sequence number, or 0 if nothing was recorded.
func (p *Pipeline) Flush(ctx context.Context) (uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()

	intervalTo := p.now()
	var rm metricdata.ResourceMetrics
	if err := p.reader.Collect(ctx, &rm); err != nil {
		return 0, fmt.Errorf("collect metrics: %w", err)
	}
	appendHistograms(&rm, instrumentation.Scope{Name: meterName}, p.sink.histograms.take())
	from := p.intervalFrom
	p.intervalFrom = intervalTo
	if pointCount(&rm) == 0 {
		return 0, nil
	}
	setInterval(&rm, from, intervalTo)

	seq, err := p.sequence.Next()
	if err != nil {
		return 0, err
	}
	if rm.Resource, err = batchResource(p.base, seq); err != nil {
		return 0, fmt.Errorf("build batch resource: %w", err)
	}
	body, err := encodeRequest(&rm)
	if err != nil {
		return 0, fmt.Errorf("batch %d: %w", seq, err)
	}
	// Delivery and its retries are the forwarder's: a down gateway never blocks a collection.
	if err := p.spool.Append(spool.Batch{Seq: seq, ContentEncoding: "gzip", Body: body}); err != nil {
		return 0, fmt.Errorf("write batch %d to the spool: %w", seq, err)
	}
	return seq, nil
}

// Shutdown releases the SDK. Call Flush first to keep the last interval.
func (p *Pipeline) Shutdown(ctx context.Context) error {
	if err := p.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("shut down metrics: %w", err)
	}
	return nil
}
