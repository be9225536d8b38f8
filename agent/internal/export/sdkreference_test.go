package export

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
)

// sdkSink is how the agent recorded before it had its own accumulator, kept for the tests as
// the reference the accumulator must agree with: the OpenTelemetry SDK's synchronous
// instruments (Counters for deltas, Gauges) read by a ManualReader with delta temporality, the
// pre-aggregated histograms added beside them, every point stamped with the batch's interval,
// and the resource built with the SDK's resource package.
type sdkSink struct {
	reader *sdkmetric.ManualReader
	meter  metric.Meter

	mu            sync.Mutex
	intCounters   map[string]metric.Int64Counter
	floatCounters map[string]metric.Float64Counter
	intGauges     map[string]metric.Int64Gauge
	floatGauges   map[string]metric.Float64Gauge
	histOrder     []histogramKey
	histograms    map[histogramKey]*histogramPoint
}

var _ collector.Sink = (*sdkSink)(nil)

func newSDKSink(t *testing.T) *sdkSink {
	reader := sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(
		func(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.DeltaTemporality }))
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { provider.Shutdown(context.Background()) })
	return &sdkSink{reader: reader, meter: provider.Meter(meterName),
		intCounters: map[string]metric.Int64Counter{}, floatCounters: map[string]metric.Float64Counter{},
		intGauges: map[string]metric.Int64Gauge{}, floatGauges: map[string]metric.Float64Gauge{},
		histograms: map[histogramKey]*histogramPoint{}}
}

func sdkInstrument[I any](s *sdkSink, cache map[string]I, name string, create func() (I, error)) I {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inst, ok := cache[name]; ok {
		return inst
	}
	inst, err := create()
	if err != nil {
		panic(err) // catalogue names are valid instrument names
	}
	cache[name] = inst
	return inst
}

func (s *sdkSink) AddInt(m catalogue.IntCounter, delta int64, attrs ...attribute.KeyValue) {
	sdkInstrument(s, s.intCounters, m.Name, func() (metric.Int64Counter, error) {
		return s.meter.Int64Counter(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	}).Add(context.Background(), delta, metric.WithAttributes(attrs...))
}

func (s *sdkSink) AddFloat(m catalogue.FloatCounter, delta float64, attrs ...attribute.KeyValue) {
	sdkInstrument(s, s.floatCounters, m.Name, func() (metric.Float64Counter, error) {
		return s.meter.Float64Counter(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	}).Add(context.Background(), delta, metric.WithAttributes(attrs...))
}

func (s *sdkSink) SetInt(m catalogue.IntGauge, value int64, attrs ...attribute.KeyValue) {
	sdkInstrument(s, s.intGauges, m.Name, func() (metric.Int64Gauge, error) {
		return s.meter.Int64Gauge(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	}).Record(context.Background(), value, metric.WithAttributes(attrs...))
}

func (s *sdkSink) SetFloat(m catalogue.FloatGauge, value float64, attrs ...attribute.KeyValue) {
	sdkInstrument(s, s.floatGauges, m.Name, func() (metric.Float64Gauge, error) {
		return s.meter.Float64Gauge(m.Name, metric.WithUnit(m.Unit), metric.WithDescription(m.Description))
	}).Record(context.Background(), value, metric.WithAttributes(attrs...))
}

func (s *sdkSink) AddHistogram(m catalogue.Histogram, d collector.HistogramDelta, attrs ...attribute.KeyValue) {
	set := attribute.NewSet(attrs...)
	key := histogramKey{m.Name, set.Equivalent()}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.histograms[key]
	if !ok {
		p = &histogramPoint{metric: m, attrs: set, counts: make([]uint64, len(d.BucketCounts))}
		s.histograms[key] = p
		s.histOrder = append(s.histOrder, key)
	}
	for i, n := range d.BucketCounts {
		p.counts[i] += n
	}
	p.sum += d.Sum
}

// collect is the old Flush up to the encoding: the reader's metrics, then the histograms in
// first-recorded order, every point stamped with [from, to], and the batch resource.
func (s *sdkSink) collect(t *testing.T, from, to time.Time, res *resource.Resource) *metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := s.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var hists []metricdata.Metrics
	index := map[string]int{}
	for _, key := range s.histOrder {
		p := s.histograms[key]
		i, ok := index[key.name]
		if !ok {
			i = len(hists)
			index[key.name] = i
			hists = append(hists, metricdata.Metrics{Name: p.metric.Name, Description: p.metric.Description,
				Unit: p.metric.Unit, Data: metricdata.Histogram[float64]{Temporality: metricdata.DeltaTemporality}})
		}
		data := hists[i].Data.(metricdata.Histogram[float64])
		data.DataPoints = append(data.DataPoints, metricdata.HistogramDataPoint[float64]{
			Attributes: p.attrs, Count: p.count(), Bounds: p.metric.Bounds, BucketCounts: p.counts, Sum: p.sum})
		hists[i].Data = data
	}
	s.histOrder, s.histograms = nil, map[histogramKey]*histogramPoint{}
	if len(hists) > 0 {
		if len(rm.ScopeMetrics) == 0 {
			rm.ScopeMetrics = append(rm.ScopeMetrics, metricdata.ScopeMetrics{Scope: instrumentation.Scope{Name: meterName}})
		}
		rm.ScopeMetrics[0].Metrics = append(rm.ScopeMetrics[0].Metrics, hists...)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch data := m.Data.(type) {
			case metricdata.Sum[int64]:
				stampSDK(data.DataPoints, from, to)
			case metricdata.Sum[float64]:
				stampSDK(data.DataPoints, from, to)
			case metricdata.Gauge[int64]:
				stampSDK(data.DataPoints, from, to)
			case metricdata.Gauge[float64]:
				stampSDK(data.DataPoints, from, to)
			case metricdata.Histogram[float64]:
				for i := range data.DataPoints {
					data.DataPoints[i].StartTime, data.DataPoints[i].Time = from, to
				}
			}
		}
	}
	rm.Resource = res
	return &rm
}

func stampSDK[N int64 | float64](points []metricdata.DataPoint[N], from, to time.Time) {
	for i := range points {
		points[i].StartTime, points[i].Time = from, to
	}
}

// sdkBatchResource is the batch resource as the SDK's resource package built it: the base
// resource, merged with the capabilities, merged with the batch number.
func sdkBatchResource(host hostinfo.Info, agentVersion, agentID string, capabilities []string, seq uint64) *resource.Resource {
	// The attributes are BaseResource's own: what is compared is how the batch resource is merged.
	baseSet := BaseResource(host, agentVersion, agentID).Set()
	base := resource.NewSchemaless(baseSet.ToSlice()...)
	withCaps, err := resource.Merge(base, resource.NewSchemaless(attribute.StringSlice(catalogue.ResourceCapabilities, capabilities)))
	if err != nil {
		panic(err)
	}
	batch, err := resource.Merge(withCaps, resource.NewSchemaless(attribute.Int64(catalogue.ResourceBatchSeq, int64(seq))))
	if err != nil {
		panic(err)
	}
	return batch
}
