package export

import (
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
)

// histograms holds pre-aggregated histogram points until the next Flush. The SDK's histogram
// instrument takes one value per Record; the kernel already aggregated the buckets, so the
// points are added to the batch as OTLP histograms (explicit bounds, delta) directly.
type histograms struct {
	mu     sync.Mutex
	order  []histogramKey
	points map[histogramKey]*histogramPoint
}

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

func (h *histograms) add(m catalogue.Histogram, d collector.HistogramDelta, attrs []attribute.KeyValue) error {
	if len(d.BucketCounts) != len(m.Bounds)+1 {
		return errBucketCount{m.Name, len(d.BucketCounts), len(m.Bounds) + 1}
	}
	set := attribute.NewSet(attrs...)
	key := histogramKey{m.Name, set.Equivalent()}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.points == nil {
		h.points = map[histogramKey]*histogramPoint{}
	}
	p, ok := h.points[key]
	if !ok {
		p = &histogramPoint{metric: m, attrs: set, counts: make([]uint64, len(d.BucketCounts))}
		h.points[key] = p
		h.order = append(h.order, key)
	}
	for i, n := range d.BucketCounts {
		p.counts[i] += n
	}
	p.sum += d.Sum
	return nil
}

// take returns the pending points as OTLP metrics, one per name in first-recorded order, and
// empties the store.
func (h *histograms) take() []metricdata.Metrics {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []metricdata.Metrics
	index := map[string]int{}
	for _, key := range h.order {
		p := h.points[key]
		i, ok := index[key.name]
		if !ok {
			i = len(out)
			index[key.name] = i
			out = append(out, metricdata.Metrics{Name: p.metric.Name, Description: p.metric.Description,
				Unit: p.metric.Unit, Data: metricdata.Histogram[float64]{Temporality: metricdata.DeltaTemporality}})
		}
		var count uint64
		for _, n := range p.counts {
			count += n
		}
		data := out[i].Data.(metricdata.Histogram[float64])
		data.DataPoints = append(data.DataPoints, metricdata.HistogramDataPoint[float64]{
			Attributes: p.attrs, Count: count, Bounds: p.metric.Bounds, BucketCounts: p.counts, Sum: p.sum,
		})
		out[i].Data = data
	}
	h.order, h.points = nil, nil
	return out
}

// appendHistograms adds ms to the agent's scope in rm (creating it if the SDK had nothing).
func appendHistograms(rm *metricdata.ResourceMetrics, scope instrumentation.Scope, ms []metricdata.Metrics) {
	if len(ms) == 0 {
		return
	}
	for i := range rm.ScopeMetrics {
		if rm.ScopeMetrics[i].Scope.Name == scope.Name {
			rm.ScopeMetrics[i].Metrics = append(rm.ScopeMetrics[i].Metrics, ms...)
			return
		}
	}
	rm.ScopeMetrics = append(rm.ScopeMetrics, metricdata.ScopeMetrics{Scope: scope, Metrics: ms})
}

func stampHistogram(points []metricdata.HistogramDataPoint[float64], from, to time.Time) {
	for i := range points {
		points[i].StartTime, points[i].Time = from, to
	}
}

type errBucketCount struct {
	name      string
	got, want int
}

func (e errBucketCount) Error() string {
	return fmt.Sprintf("histogram %s: %d bucket counts, the catalogue has %d buckets", e.name, e.got, e.want)
}
