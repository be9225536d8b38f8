package export

import (
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
)

// Histogram points arrive pre-aggregated: the kernel already counted the buckets, so an
// interval's point is the sum of the deltas recorded for its attribute set, sent as an OTLP
// histogram with the catalogue's explicit bounds.

type histogramKey struct {
	name  string
	attrs attribute.Distinct
}

type histogramPoint struct {
	metric catalogue.Histogram
	attrs  attribute.Set
	counts []uint64
	sum    float64
}

// addHistogram adds d (whose bucket count the caller checked) to the interval's point. The
// caller holds s.mu.
func (s *sink) addHistogram(m catalogue.Histogram, d collector.HistogramDelta, set attribute.Set) {
	if s.histograms == nil {
		s.histograms = map[histogramKey]*histogramPoint{}
	}
	key := histogramKey{m.Name, set.Equivalent()}
	p, ok := s.histograms[key]
	if !ok {
		p = &histogramPoint{metric: m, attrs: set, counts: make([]uint64, len(d.BucketCounts))}
		s.histograms[key] = p
	}
	for i, n := range d.BucketCounts {
		p.counts[i] += n
	}
	p.sum += d.Sum
}

func (p *histogramPoint) count() uint64 {
	var n uint64
	for _, c := range p.counts {
		n += c
	}
	return n
}

type errBucketCount struct {
	name      string
	got, want int
}

func (e errBucketCount) Error() string {
	return fmt.Sprintf("histogram %s: %d bucket counts, the catalogue has %d buckets", e.name, e.got, e.want)
}
