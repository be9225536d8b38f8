// Package export turns what collectors record into OTLP batches on the spool: the sink
// accumulates one interval per metric and attribute set (counters' deltas, gauges' last
// values, histograms' buckets), and each tick's Flush encodes it as the official OTLP
// protobuf messages (otlp.go) with delta temporality, so each batch covers exactly one
// interval, gzipped and written to the spool.
package export

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// meterName is the instrumentation scope of every metric the agent sends.
const meterName = "github.com/spindle-io/spindle/agent"

// Settings configure a Pipeline.
type Settings struct {
	Resource Resource // BaseResource(...)
	Spool    *spool.Spool
	Sequence *spool.Sequence
	OnError  func(error) // measurements the pipeline cannot take (a histogram's bucket count); defaults to ignoring them
	// Now is the clock that bounds each batch's interval; default time.Now. The fault tests'
	// spool filler (spoolfill) sets a fake one to produce a day of batches in seconds.
	Now func() time.Time
}

// Pipeline numbers and spools one batch per Flush. Flush must not be called concurrently with
// itself; Sink is safe for concurrent use.
type Pipeline struct {
	base     Resource
	sequence *spool.Sequence
	spool    *spool.Spool
	sink     *sink
	now      func() time.Time

	mu           sync.Mutex
	intervalFrom time.Time
}

// New builds the pipeline. The interval of the first batch starts now.
func New(ctx context.Context, s Settings) (*Pipeline, error) {
	onError := s.OnError
	if onError == nil {
		onError = func(error) {}
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	return &Pipeline{
		base:         s.Resource,
		sequence:     s.Sequence,
		spool:        s.Spool,
		sink:         newSink(onError),
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
	from := p.intervalFrom
	p.intervalFrom = intervalTo
	numbers, histograms := p.sink.take()
	if len(numbers) == 0 && len(histograms) == 0 {
		return 0, nil
	}
	metrics, err := batchMetrics(numbers, histograms, from, intervalTo)
	if err != nil {
		return 0, fmt.Errorf("collect metrics: %w", err)
	}

	seq, err := p.sequence.Next()
	if err != nil {
		return 0, err
	}
	body, err := encodeRequest(batchResource(p.base, seq).Set(), metrics)
	if err != nil {
		return 0, fmt.Errorf("batch %d: %w", seq, err)
	}
	// Delivery and its retries are the forwarder's: a down gateway never blocks a collection.
	if err := p.spool.Append(spool.Batch{Seq: seq, ContentEncoding: "gzip", Body: body}); err != nil {
		return 0, fmt.Errorf("write batch %d to the spool: %w", seq, err)
	}
	return seq, nil
}
