package export

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// The agent encodes its batches itself instead of through the official otlpmetrichttp exporter:
// that exporter imports the OTLP collector service package, whose gRPC stubs and gateway
// handlers bring gRPC, grpc-gateway, html/template and their init work into the binary (about
// 8 MB of its 33, most of it resident), for a request that is one repeated field. The messages
// are the official ones (go.opentelemetry.io/proto/otlp/metrics/v1), filled as that exporter
// fills them; the tests decode the result with the collector package and compare it with what
// the exporter makes of the same measurements recorded through the OpenTelemetry SDK.

// encodeRequest returns the OTLP/HTTP request body of one batch: an ExportMetricsServiceRequest
// (field 1: repeated ResourceMetrics, the only field) holding the agent's scope, gzipped.
func encodeRequest(resource attribute.Set, metrics []*metricpb.Metric) ([]byte, error) {
	resAttrs, err := keyValues(resource.Iter())
	if err != nil {
		return nil, fmt.Errorf("resource: %w", err)
	}
	msg := &metricpb.ResourceMetrics{
		Resource: &resourcepb.Resource{Attributes: resAttrs},
		ScopeMetrics: []*metricpb.ScopeMetrics{{
			Scope:   &commonpb.InstrumentationScope{Name: meterName},
			Metrics: metrics,
		}},
	}
	inner, err := proto.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("encode batch: %w", err)
	}
	raw := protowire.AppendTag(make([]byte, 0, len(inner)+12), 1, protowire.BytesType)
	raw = protowire.AppendBytes(raw, inner)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(raw); err != nil {
		return nil, fmt.Errorf("compress batch: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress batch: %w", err)
	}
	return buf.Bytes(), nil
}

// batchMetrics turns one interval's points into OTLP metrics, every point stamped with the
// interval [from, to]: the gateway joins a device's metrics into one row, and its
// interval_seconds must be the same for all of them. Metrics are sorted by name and points by
// attributes, so the same measurements always give the same bytes.
func batchMetrics(numbers map[streamKey]*numberStream, histograms map[histogramKey]*histogramPoint, from, to time.Time) ([]*metricpb.Metric, error) {
	start, end := unixNano(from), unixNano(to)
	streams := slices.SortedFunc(maps.Values(numbers), func(a, b *numberStream) int {
		return cmp.Or(cmp.Compare(a.metric.Name, b.metric.Name), cmp.Compare(a.kind, b.kind))
	})
	out := make([]*metricpb.Metric, 0, len(streams)+1)
	for _, st := range streams {
		m, err := numberMetric(st, start, end)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", st.metric.Name, err)
		}
		out = append(out, m)
	}
	byName := map[string][]*histogramPoint{}
	for _, p := range histograms {
		byName[p.metric.Name] = append(byName[p.metric.Name], p)
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		m, err := histogramMetric(byName[name], start, end)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", name, err)
		}
		out = append(out, m)
	}
	// Stable: a name that is both a number and a histogram metric keeps numbers first.
	slices.SortStableFunc(out, func(a, b *metricpb.Metric) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// numberMetric leaves exemplars out, as the SDK did for the agent: it had no spans to sample
// exemplars from.
func numberMetric(st *numberStream, start, end uint64) (*metricpb.Metric, error) {
	points := slices.SortedFunc(maps.Values(st.points), func(a, b *numberPoint) int { return compareSets(a.attrs, b.attrs) })
	dps := make([]*metricpb.NumberDataPoint, 0, len(points))
	for _, p := range points {
		attrs, err := keyValues(p.attrs.Iter())
		if err != nil {
			return nil, err
		}
		dp := &metricpb.NumberDataPoint{Attributes: attrs, StartTimeUnixNano: start, TimeUnixNano: end}
		if st.kind == intSum || st.kind == intGauge {
			dp.Value = &metricpb.NumberDataPoint_AsInt{AsInt: p.asInt}
		} else {
			dp.Value = &metricpb.NumberDataPoint_AsDouble{AsDouble: p.asDouble}
		}
		dps = append(dps, dp)
	}
	m := &metricpb.Metric{Name: st.metric.Name, Description: st.metric.Description, Unit: st.metric.Unit}
	switch st.kind {
	case intSum, floatSum:
		// Counters: monotonic sums of the interval's deltas.
		m.Data = &metricpb.Metric_Sum{Sum: &metricpb.Sum{DataPoints: dps, IsMonotonic: true,
			AggregationTemporality: metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA}}
	default:
		m.Data = &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: dps}}
	}
	return m, nil
}

// histogramMetric sends no min or max: the kernel's buckets do not keep them.
func histogramMetric(points []*histogramPoint, start, end uint64) (*metricpb.Metric, error) {
	slices.SortFunc(points, func(a, b *histogramPoint) int { return compareSets(a.attrs, b.attrs) })
	dps := make([]*metricpb.HistogramDataPoint, 0, len(points))
	for _, p := range points {
		attrs, err := keyValues(p.attrs.Iter())
		if err != nil {
			return nil, err
		}
		sum := p.sum
		dps = append(dps, &metricpb.HistogramDataPoint{Attributes: attrs, StartTimeUnixNano: start, TimeUnixNano: end,
			Count: p.count(), Sum: &sum, BucketCounts: p.counts, ExplicitBounds: p.metric.Bounds})
	}
	m := points[0].metric
	return &metricpb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit,
		Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{DataPoints: dps,
			AggregationTemporality: metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA}}}, nil
}

func unixNano(t time.Time) uint64 { return uint64(max(0, t.UnixNano())) }

func keyValues(it attribute.Iterator) ([]*commonpb.KeyValue, error) {
	if it.Len() == 0 {
		return nil, nil
	}
	out := make([]*commonpb.KeyValue, 0, it.Len())
	for it.Next() {
		kv := it.Attribute()
		v, err := anyValue(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", kv.Key, err)
		}
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: v})
	}
	return out, nil
}

// anyValue covers the scalar and slice kinds; the agent records strings and integers.
func anyValue(v attribute.Value) (*commonpb.AnyValue, error) {
	switch v.Type() {
	case attribute.BOOL:
		return boolValue(v.AsBool()), nil
	case attribute.INT64:
		return intValue(v.AsInt64()), nil
	case attribute.FLOAT64:
		return doubleValue(v.AsFloat64()), nil
	case attribute.STRING:
		return stringValue(v.AsString()), nil
	case attribute.BOOLSLICE:
		return array(v.AsBoolSlice(), boolValue), nil
	case attribute.INT64SLICE:
		return array(v.AsInt64Slice(), intValue), nil
	case attribute.FLOAT64SLICE:
		return array(v.AsFloat64Slice(), doubleValue), nil
	case attribute.STRINGSLICE:
		return array(v.AsStringSlice(), stringValue), nil
	}
	return nil, fmt.Errorf("value of type %s is not exported by the agent", v.Type())
}

func boolValue(b bool) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
}

func intValue(n int64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}
}

func doubleValue(f float64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: f}}
}

func stringValue(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}

func array[T any](vals []T, one func(T) *commonpb.AnyValue) *commonpb.AnyValue {
	out := make([]*commonpb.AnyValue, 0, len(vals))
	for _, v := range vals {
		out = append(out, one(v))
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: out}}}
}

// compareSets orders attribute sets key by key (sets are sorted by key), so points come out
// in the same order every time; integers compare as numbers, so a curve's sizes ascend.
func compareSets(a, b attribute.Set) int {
	ai, bi := a.Iter(), b.Iter()
	for ai.Next() {
		if !bi.Next() {
			return 1
		}
		x, y := ai.Attribute(), bi.Attribute()
		if c := cmp.Compare(x.Key, y.Key); c != 0 {
			return c
		}
		if c := compareValues(x.Value, y.Value); c != 0 {
			return c
		}
	}
	if bi.Next() {
		return -1
	}
	return 0
}

func compareValues(x, y attribute.Value) int {
	if c := cmp.Compare(x.Type(), y.Type()); c != 0 {
		return c
	}
	switch x.Type() {
	case attribute.BOOL:
		return cmp.Compare(boolRank(x.AsBool()), boolRank(y.AsBool()))
	case attribute.INT64:
		return cmp.Compare(x.AsInt64(), y.AsInt64())
	case attribute.FLOAT64:
		return cmp.Compare(x.AsFloat64(), y.AsFloat64())
	case attribute.STRING:
		return cmp.Compare(x.AsString(), y.AsString())
	}
	return cmp.Compare(x.String(), y.String())
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
