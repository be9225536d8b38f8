package export

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
)

// sink records collector measurements into OpenTelemetry synchronous instruments: Counters
// (the collector adds the interval's delta) and Gauges. Instruments are created on first use
// from the catalogue entry, so name, unit and description come from one place.
type sink struct {
	meter metric.Meter

	mu            sync.Mutex
	intCounters   map[string]metric.Int64Counter
	floatCounters map[string]metric.Float64Counter
	intGauges     map[string]metric.Int64Gauge
	floatGauges   map[string]metric.Float64Gauge
	histograms    histograms
	errorHandler  func(error)
}

var _ collector.Sink = (*sink)(nil)

func newSink(meter metric.Meter, onError func(error)) *sink {
	return &sink{
		meter:         meter,
		intCounters:   map[string]metric.Int64Counter{},
		floatCounters: map[string]metric.Float64Counter{},
		intGauges:     map[string]metric.Int64Gauge{},
		floatGauges:   map[string]metric.Float64Gauge{},
		errorHandler:  onError,
	}
}

// instrument returns the cached instrument for m, creating it once.
func instrument[I any](s *sink, cache map[string]I, m catalogue.Metric, create func() (I, error)) I {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inst, ok := cache[m.Name]; ok {
		return inst
	}
	inst, err := create()
	if err != nil {
		// The SDK still returns a usable instrument alongside a naming error; report it.
		s.errorHandler(err)
	}
	cache[m.Name] = inst
	return inst
}

func (s *sink) AddInt(m catalogue.IntCounter, delta int64, attrs ...attribute.KeyValue) {
	c := instrument(s, s.intCounters, m.Metric, func() (metric.Int64Counter, error) {
		return s.meter.Int64Counter(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	})
	c.Add(context.Background(), delta, metric.WithAttributes(attrs...))
}

func (s *sink) AddFloat(m catalogue.FloatCounter, delta float64, attrs ...attribute.KeyValue) {
	c := instrument(s, s.floatCounters, m.Metric, func() (metric.Float64Counter, error) {
		return s.meter.Float64Counter(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	})
	c.Add(context.Background(), delta, metric.WithAttributes(attrs...))
}

func (s *sink) SetInt(m catalogue.IntGauge, value int64, attrs ...attribute.KeyValue) {
	g := instrument(s, s.intGauges, m.Metric, func() (metric.Int64Gauge, error) {
		return s.meter.Int64Gauge(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	})
	g.Record(context.Background(), value, metric.WithAttributes(attrs...))
}

func (s *sink) SetFloat(m catalogue.FloatGauge, value float64, attrs ...attribute.KeyValue) {
	g := instrument(s, s.floatGauges, m.Metric, func() (metric.Float64Gauge, error) {
		return s.meter.Float64Gauge(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	})
	g.Record(context.Background(), value, metric.WithAttributes(attrs...))
}

func (s *sink) AddHistogram(m catalogue.Histogram, d collector.HistogramDelta, attrs ...attribute.KeyValue) {
	if err := s.histograms.add(m, d, attrs); err != nil {
		s.errorHandler(err)
	}
}
