package export

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
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
// fills them; the tests decode the result with the collector package and compare it with the
// exporter's own output.

// encodeRequest returns the OTLP/HTTP request body for rm: an ExportMetricsServiceRequest
// (field 1: repeated ResourceMetrics, the only field), gzipped.
func encodeRequest(rm *metricdata.ResourceMetrics) ([]byte, error) {
	msg, err := resourceMetrics(rm)
	if err != nil {
		return nil, err
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

func resourceMetrics(rm *metricdata.ResourceMetrics) (*metricpb.ResourceMetrics, error) {
	resAttrs, err := keyValues(rm.Resource.Iter())
	if err != nil {
		return nil, fmt.Errorf("resource: %w", err)
	}
	out := &metricpb.ResourceMetrics{
		Resource:     &resourcepb.Resource{Attributes: resAttrs},
		ScopeMetrics: make([]*metricpb.ScopeMetrics, 0, len(rm.ScopeMetrics)),
		SchemaUrl:    rm.Resource.SchemaURL(),
	}
	for _, sm := range rm.ScopeMetrics {
		scopeAttrs, err := keyValues(sm.Scope.Attributes.Iter())
		if err != nil {
			return nil, fmt.Errorf("scope %s: %w", sm.Scope.Name, err)
		}
		ms := make([]*metricpb.Metric, 0, len(sm.Metrics))
		for _, m := range sm.Metrics {
			pm, err := metricMessage(m)
			if err != nil {
				return nil, fmt.Errorf("metric %s: %w", m.Name, err)
			}
			ms = append(ms, pm)
		}
		out.ScopeMetrics = append(out.ScopeMetrics, &metricpb.ScopeMetrics{
			Scope:     &commonpb.InstrumentationScope{Name: sm.Scope.Name, Version: sm.Scope.Version, Attributes: scopeAttrs},
			Metrics:   ms,
			SchemaUrl: sm.Scope.SchemaURL,
		})
	}
	return out, nil
}

// metricMessage covers what the agent records: synchronous counters and gauges (Sum, Gauge) and the
// kernel's pre-aggregated histograms (Histogram[float64]). Anything else is a programming error
// caught by the tests, never silently dropped.
func metricMessage(m metricdata.Metrics) (*metricpb.Metric, error) {
	out := &metricpb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
	var err error
	switch data := m.Data.(type) {
	case metricdata.Gauge[int64]:
		out.Data, err = gauge(data)
	case metricdata.Gauge[float64]:
		out.Data, err = gauge(data)
	case metricdata.Sum[int64]:
		out.Data, err = sum(data)
	case metricdata.Sum[float64]:
		out.Data, err = sum(data)
	case metricdata.Histogram[float64]:
		out.Data, err = histogram(data)
	default:
		return nil, fmt.Errorf("aggregation %T is not exported by the agent", data)
	}
	return out, err
}

func temporality(t metricdata.Temporality) (metricpb.AggregationTemporality, error) {
	switch t {
	case metricdata.DeltaTemporality:
		return metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA, nil
	case metricdata.CumulativeTemporality:
		return metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE, nil
	}
	return 0, fmt.Errorf("unknown temporality %v", t)
}

func gauge[N int64 | float64](g metricdata.Gauge[N]) (*metricpb.Metric_Gauge, error) {
	points, err := numberPoints(g.DataPoints)
	if err != nil {
		return nil, err
	}
	return &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: points}}, nil
}

func sum[N int64 | float64](s metricdata.Sum[N]) (*metricpb.Metric_Sum, error) {
	t, err := temporality(s.Temporality)
	if err != nil {
		return nil, err
	}
	points, err := numberPoints(s.DataPoints)
	if err != nil {
		return nil, err
	}
	return &metricpb.Metric_Sum{Sum: &metricpb.Sum{AggregationTemporality: t, IsMonotonic: s.IsMonotonic, DataPoints: points}}, nil
}

// numberPoints leaves exemplars out: the agent's meter provider keeps none (no spans, so the
// SDK's trace-based exemplar filter never samples).
func numberPoints[N int64 | float64](points []metricdata.DataPoint[N]) ([]*metricpb.NumberDataPoint, error) {
	out := make([]*metricpb.NumberDataPoint, 0, len(points))
	for _, p := range points {
		attrs, err := keyValues(p.Attributes.Iter())
		if err != nil {
			return nil, err
		}
		np := &metricpb.NumberDataPoint{Attributes: attrs, StartTimeUnixNano: unixNano(p.StartTime), TimeUnixNano: unixNano(p.Time)}
		switch v := any(p.Value).(type) {
		case int64:
			np.Value = &metricpb.NumberDataPoint_AsInt{AsInt: v}
		case float64:
			np.Value = &metricpb.NumberDataPoint_AsDouble{AsDouble: v}
		}
		out = append(out, np)
	}
	return out, nil
}

func histogram(h metricdata.Histogram[float64]) (*metricpb.Metric_Histogram, error) {
	t, err := temporality(h.Temporality)
	if err != nil {
		return nil, err
	}
	points := make([]*metricpb.HistogramDataPoint, 0, len(h.DataPoints))
	for _, p := range h.DataPoints {
		attrs, err := keyValues(p.Attributes.Iter())
		if err != nil {
			return nil, err
		}
		total := p.Sum
		hp := &metricpb.HistogramDataPoint{Attributes: attrs, StartTimeUnixNano: unixNano(p.StartTime), TimeUnixNano: unixNano(p.Time),
			Count: p.Count, Sum: &total, BucketCounts: p.BucketCounts, ExplicitBounds: p.Bounds}
		if v, ok := p.Min.Value(); ok {
			hp.Min = &v
		}
		if v, ok := p.Max.Value(); ok {
			hp.Max = &v
		}
		points = append(points, hp)
	}
	return &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{AggregationTemporality: t, DataPoints: points}}, nil
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
