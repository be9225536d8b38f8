// Package otlp decodes an OTLP ExportMetricsServiceRequest (protobuf) into a small model holding
// only what the gateway's mapping reads: resource attributes, and per metric its name, unit, type,
// temporality, monotonicity and points. It replaces the collector's pdata on the ingest hot path:
// points live in a few shared slices instead of one heap object each, and nothing is kept that
// no row needs (descriptions, exemplars, scopes). Wire data the model leaves out is still
// checked exactly as pdata checks it, so a request is refused or accepted as before.
//
// The enum types (metric type, temporality, value types, timestamps) are pdata's own, so error
// messages name them as they always have.
package otlp

import (
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Metrics is one decoded ExportMetricsServiceRequest.
type Metrics struct {
	ResourceMetrics []ResourceMetrics
}

// ResourceMetrics is one resource's metrics; Resource holds the resource's attributes.
type ResourceMetrics struct {
	Resource     Attributes
	ScopeMetrics []ScopeMetrics
}

// ScopeMetrics is one instrumentation scope's metrics (the scope itself is not kept).
type ScopeMetrics struct {
	Metrics []Metric
}

// Metric is one metric. Which points it holds follows Type: Numbers for a Gauge or a Sum,
// Histograms for a Histogram, Others for an ExponentialHistogram or a Summary.
type Metric struct {
	Name, Unit  string
	Type        pmetric.MetricType
	Temporality pmetric.AggregationTemporality // Sum, Histogram, ExponentialHistogram
	Monotonic   bool                           // Sum
	Numbers     []NumberPoint
	Histograms  []HistogramPoint
	Others      []OtherPoint
}

// pointFlagNoRecordedValue is OTLP's DataPointFlags.FLAG_NO_RECORDED_VALUE.
const pointFlagNoRecordedValue = 1

// NumberPoint is a Gauge or Sum data point.
type NumberPoint struct {
	Attributes  Attributes
	Start, Time pcommon.Timestamp
	ValueType   pmetric.NumberDataPointValueType
	Int         int64
	Double      float64
	Flags       uint32
}

// NoRecordedValue reports the point's FLAG_NO_RECORDED_VALUE.
func (p *NumberPoint) NoRecordedValue() bool { return p.Flags&pointFlagNoRecordedValue != 0 }

// HistogramPoint is an explicit-bounds Histogram data point.
type HistogramPoint struct {
	Attributes     Attributes
	Start, Time    pcommon.Timestamp
	Count          uint64
	Sum            float64
	HasSum         bool
	BucketCounts   []uint64
	ExplicitBounds []float64
	Flags          uint32
}

// NoRecordedValue reports the point's FLAG_NO_RECORDED_VALUE.
func (p *HistogramPoint) NoRecordedValue() bool { return p.Flags&pointFlagNoRecordedValue != 0 }

// OtherPoint is an ExponentialHistogram or Summary data point: no family stores one, so only
// what the request bounds check (times, attributes) is kept.
type OtherPoint struct {
	Attributes  Attributes
	Start, Time pcommon.Timestamp
}

// PointCount is the number of data points of m.
func (m *Metric) PointCount() int { return len(m.Numbers) + len(m.Histograms) + len(m.Others) }

// PointCount is the number of data points of the request.
func (md *Metrics) PointCount() int {
	n := 0
	for r := range md.ResourceMetrics {
		for s := range md.ResourceMetrics[r].ScopeMetrics {
			for m := range md.ResourceMetrics[r].ScopeMetrics[s].Metrics {
				n += md.ResourceMetrics[r].ScopeMetrics[s].Metrics[m].PointCount()
			}
		}
	}
	return n
}

// Attributes are key-value pairs in wire order; a key may repeat, as on the wire.
type Attributes []KeyValue

// KeyValue is one attribute.
type KeyValue struct {
	Key   string
	Value Value
}

// Get returns the first value under key, as pcommon.Map.Get does.
func (a Attributes) Get(key string) (Value, bool) {
	for i := range a {
		if a[i].Key == key {
			return a[i].Value, true
		}
	}
	return Value{}, false
}

// Remove removes the first entry under key as pcommon.Map.Remove does (the last entry takes its
// place), and reports whether there was one.
func (a *Attributes) Remove(key string) bool {
	for i := range *a {
		if (*a)[i].Key == key {
			last := len(*a) - 1
			(*a)[i] = (*a)[last]
			*a = (*a)[:last]
			return true
		}
	}
	return false
}

// Value is an attribute value (OTLP AnyValue). The field of Type holds it; the others are zero,
// so Str of a non-string value is "" as pcommon.Value.Str is. Bytes, lists and maps (rare in
// attributes) sit behind a pointer, which keeps every attribute small.
type Value struct {
	Type      pcommon.ValueType
	Bool      bool
	Str       string
	Int       int64
	Double    float64
	composite *composite
}

type composite struct {
	bytes []byte
	slice []Value
	kvs   Attributes
}

// SliceValue is a list value.
func SliceValue(items []Value) Value {
	return Value{Type: pcommon.ValueTypeSlice, composite: &composite{slice: items}}
}

// MapValue is a map value (repeated keys kept in wire order).
func MapValue(kvs Attributes) Value {
	return Value{Type: pcommon.ValueTypeMap, composite: &composite{kvs: kvs}}
}

// BytesValue is a bytes value.
func BytesValue(b []byte) Value {
	return Value{Type: pcommon.ValueTypeBytes, composite: &composite{bytes: b}}
}

// Slice is a list value's items (nil for any other type).
func (v Value) Slice() []Value {
	if v.composite == nil {
		return nil
	}
	return v.composite.slice
}

// Map is a map value's entries (nil for any other type).
func (v Value) Map() Attributes {
	if v.composite == nil {
		return nil
	}
	return v.composite.kvs
}

// Bytes is a bytes value's bytes (nil for any other type).
func (v Value) Bytes() []byte {
	if v.composite == nil {
		return nil
	}
	return v.composite.bytes
}

// AsString renders the value as pcommon.Value.AsString does (series keys are stored, so the
// text must not change with the decoder).
func (v Value) AsString() string {
	switch v.Type {
	case pcommon.ValueTypeEmpty:
		return ""
	case pcommon.ValueTypeStr:
		return v.Str
	case pcommon.ValueTypeInt:
		return strconv.FormatInt(v.Int, 10)
	case pcommon.ValueTypeBool:
		return strconv.FormatBool(v.Bool)
	}
	// Doubles, bytes, lists and maps are rare in attributes: let pdata render them.
	out := pcommon.NewValueEmpty()
	v.CopyTo(out)
	return out.AsString()
}

// CopyTo writes the value into a pdata value.
func (v Value) CopyTo(dst pcommon.Value) {
	switch v.Type {
	case pcommon.ValueTypeStr:
		dst.SetStr(v.Str)
	case pcommon.ValueTypeInt:
		dst.SetInt(v.Int)
	case pcommon.ValueTypeDouble:
		dst.SetDouble(v.Double)
	case pcommon.ValueTypeBool:
		dst.SetBool(v.Bool)
	case pcommon.ValueTypeBytes:
		dst.SetEmptyBytes().FromRaw(v.Bytes())
	case pcommon.ValueTypeSlice:
		s := dst.SetEmptySlice()
		for _, item := range v.Slice() {
			item.CopyTo(s.AppendEmpty())
		}
	case pcommon.ValueTypeMap:
		v.Map().CopyTo(dst.SetEmptyMap())
	}
}

// CopyTo writes the attributes into a pdata map; a repeated key keeps its last value, which is
// also what pdata's AsRaw (and so AsString) of a map with a repeated key shows.
func (a Attributes) CopyTo(dst pcommon.Map) {
	for _, kv := range a {
		kv.Value.CopyTo(dst.PutEmpty(kv.Key))
	}
}
