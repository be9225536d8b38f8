package export

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
)

// sink accumulates one interval of collector measurements per metric and attribute set:
// counters add their deltas, gauges keep the last value, histograms add bucket counts. Flush
// takes everything (delta temporality: each batch holds exactly what its interval recorded).
//
// The agent used to do this with the OpenTelemetry SDK's synchronous instruments and a
// ManualReader; the SDK, its resource package and what they import (the trace API, semconv,
// logr) were 0.9 MB of the 14.3 MB binary, nearly all of it resident, to add a few hundred
// numbers per interval. For as many, one mutex is enough; the tests check the result against
// the SDK's (sdkreference_test.go).
type sink struct {
	mu           sync.Mutex
	numbers      map[streamKey]*numberStream
	histograms   map[histogramKey]*histogramPoint
	errorHandler func(error)
}

var _ collector.Sink = (*sink)(nil)

// pointKind is how a metric's points aggregate and how they go on the wire.
type pointKind uint8

const (
	intSum pointKind = iota
	floatSum
	intGauge
	floatGauge
)

// streamKey includes the kind so that a name recorded as two kinds (a programming error the
// catalogue's types make unlikely) stays two metrics, as it did with the SDK's instruments.
type streamKey struct {
	name string
	kind pointKind
}

type numberStream struct {
	metric catalogue.Metric
	kind   pointKind
	points map[attribute.Distinct]*numberPoint
}

type numberPoint struct {
	attrs    attribute.Set
	asInt    int64
	asDouble float64
}

// cardinalityLimit bounds the attribute sets of one metric per interval, as the SDK's default
// did (2,000, the last of them the overflow set): a collector gone wrong costs bounded memory
// and the gateway sees the same otel.metric.overflow point it saw before.
const cardinalityLimit = 2000

var overflowSet = attribute.NewSet(attribute.Bool("otel.metric.overflow", true))

func newSink(onError func(error)) *sink {
	return &sink{errorHandler: onError}
}

func (s *sink) AddInt(m catalogue.IntCounter, delta int64, attrs ...attribute.KeyValue) {
	set := attribute.NewSet(attrs...)
	s.mu.Lock()
	s.point(m.Metric, intSum, set).asInt += delta
	s.mu.Unlock()
}

func (s *sink) AddFloat(m catalogue.FloatCounter, delta float64, attrs ...attribute.KeyValue) {
	set := attribute.NewSet(attrs...)
	s.mu.Lock()
	s.point(m.Metric, floatSum, set).asDouble += delta
	s.mu.Unlock()
}

func (s *sink) SetInt(m catalogue.IntGauge, value int64, attrs ...attribute.KeyValue) {
	set := attribute.NewSet(attrs...)
	s.mu.Lock()
	s.point(m.Metric, intGauge, set).asInt = value
	s.mu.Unlock()
}

func (s *sink) SetFloat(m catalogue.FloatGauge, value float64, attrs ...attribute.KeyValue) {
	set := attribute.NewSet(attrs...)
	s.mu.Lock()
	s.point(m.Metric, floatGauge, set).asDouble = value
	s.mu.Unlock()
}

func (s *sink) AddHistogram(m catalogue.Histogram, d collector.HistogramDelta, attrs ...attribute.KeyValue) {
	if len(d.BucketCounts) != len(m.Bounds)+1 {
		s.errorHandler(errBucketCount{m.Name, len(d.BucketCounts), len(m.Bounds) + 1})
		return
	}
	set := attribute.NewSet(attrs...)
	s.mu.Lock()
	s.addHistogram(m, d, set)
	s.mu.Unlock()
}

// point returns the interval's point of m for set, creating it (or, past the cardinality
// limit, the overflow point). The caller holds s.mu.
func (s *sink) point(m catalogue.Metric, kind pointKind, set attribute.Set) *numberPoint {
	if s.numbers == nil {
		s.numbers = map[streamKey]*numberStream{}
	}
	key := streamKey{m.Name, kind}
	st, ok := s.numbers[key]
	if !ok {
		st = &numberStream{metric: m, kind: kind, points: map[attribute.Distinct]*numberPoint{}}
		s.numbers[key] = st
	}
	if p, ok := st.points[set.Equivalent()]; ok {
		return p
	}
	if len(st.points) >= cardinalityLimit-1 {
		set = overflowSet
		if p, ok := st.points[set.Equivalent()]; ok {
			return p
		}
	}
	p := &numberPoint{attrs: set}
	st.points[set.Equivalent()] = p
	return p
}

// take returns what was recorded since the previous take and starts the next interval empty.
func (s *sink) take() (map[streamKey]*numberStream, map[histogramKey]*histogramPoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	numbers, histograms := s.numbers, s.histograms
	s.numbers, s.histograms = nil, nil
	return numbers, histograms
}
