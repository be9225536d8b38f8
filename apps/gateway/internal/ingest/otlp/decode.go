package otlp

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/encoding/protowire"
)

// Decode parses a protobuf ExportMetricsServiceRequest. It accepts and refuses exactly what
// pdata's decoder does, and keeps what pdata would hold for the fields of the model; the model's
// slices share a few backing arrays, and short strings (names, units, keys, point attribute
// values; never a resource attribute's value, such as a credential) are interned across requests.
func Decode(buf []byte) (*Metrics, error) {
	d := decoders.Get().(*decoder)
	defer d.release()
	d.reserve(len(buf))
	md := &Metrics{}
	for pos := 0; pos < len(buf); {
		field, wireType, next, err := consumeTag(buf, pos)
		if err != nil {
			return nil, err
		}
		pos = next
		if field != 1 {
			if pos, err = consumeUnknown(buf, pos, wireType); err != nil {
				return nil, err
			}
			continue
		}
		if wireType != protowire.BytesType {
			return nil, wrongWireType(wireType, "ResourceMetrics")
		}
		var value []byte
		if value, pos, err = consumeLen(buf, pos); err != nil {
			return nil, err
		}
		rm, err := d.resourceMetrics(value)
		if err != nil {
			return nil, err
		}
		md.ResourceMetrics = append(md.ResourceMetrics, rm)
	}
	return md, nil
}

// decoder holds the backing arrays of one request's model while it is decoded, and the interned
// strings, which outlive it.
type decoder struct {
	kvs        []KeyValue
	numbers    []NumberPoint
	histograms []HistogramPoint
	others     []OtherPoint
	metrics    []Metric
	counts     []uint64
	bounds     []float64
	// per histogram point, before they are copied into counts and bounds
	pointCounts []uint64
	pointBounds []float64
	interned    map[string]string
	recent      [64]string // the latest interned strings, by a cheap hash: most lookups end here
	size        int        // of the body, to size the histogram arrays when the first histogram arrives
	// inResource: resource attribute values (the agent credential among them) are never interned
	inResource bool
}

var decoders = sync.Pool{New: func() any { return &decoder{interned: map[string]string{}} }}

// Interning bounds: strings this short are the attribute keys, devices, directions and metric
// names that repeat in every batch; the table is emptied when it grows past maxInterned.
const (
	maxInternedLength = 64
	maxInterned       = 4096
)

// reserve starts new backing arrays sized for a body of n bytes (the agent's usual batch
// fits without growing them); the previous request's arrays belong to its model.
func (d *decoder) reserve(n int) {
	d.kvs = make([]KeyValue, 0, n/80+8)
	d.numbers = make([]NumberPoint, 0, n/160+8)
	d.histograms = nil
	d.others = nil
	d.metrics = make([]Metric, 0, n/640+4)
	d.counts = nil
	d.bounds = nil
	d.size = n
}

func (d *decoder) release() {
	d.kvs, d.numbers, d.histograms, d.others, d.metrics, d.counts, d.bounds = nil, nil, nil, nil, nil, nil, nil
	if len(d.interned) > maxInterned {
		d.interned = map[string]string{} // a new map: a cleared one keeps its size
		d.recent = [len(d.recent)]string{}
	}
	decoders.Put(d)
}

func (d *decoder) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > maxInternedLength {
		return string(b)
	}
	slot := &d.recent[(len(b)*7+int(b[0])+int(b[len(b)-1])*13)&(len(d.recent)-1)]
	if *slot == string(b) {
		return *slot
	}
	s, ok := d.interned[string(b)]
	if !ok {
		s = string(b)
		d.interned[s] = s
	}
	*slot = s
	return s
}

// fields calls visit for every field of a message, skipping the fields for which visit
// returns handled false as unknown fields.
func fields(buf []byte, visit func(field int32, wireType protowire.Type, buf []byte, pos int) (next int, handled bool, err error)) error {
	for pos := 0; pos < len(buf); {
		field, wireType, next, err := consumeTag(buf, pos)
		if err != nil {
			return err
		}
		after, handled, err := visit(field, wireType, buf, next)
		if err != nil {
			return err
		}
		if !handled {
			if after, err = consumeUnknown(buf, next, wireType); err != nil {
				return err
			}
		}
		pos = after
	}
	return nil
}

// The readers below check a known field's wire type and read it, returning the next position.

func lenField(wireType protowire.Type, name string, buf []byte, pos int) ([]byte, int, error) {
	if wireType != protowire.BytesType {
		return nil, 0, wrongWireType(wireType, name)
	}
	return consumeLen(buf, pos)
}

func varintField(wireType protowire.Type, name string, buf []byte, pos int) (uint64, int, error) {
	if wireType != protowire.VarintType {
		return 0, 0, wrongWireType(wireType, name)
	}
	return consumeVarint(buf, pos)
}

func fixed64Field(wireType protowire.Type, name string, buf []byte, pos int) (uint64, int, error) {
	if wireType != protowire.Fixed64Type {
		return 0, 0, wrongWireType(wireType, name)
	}
	return consumeFixed64(buf, pos)
}

// checkedField checks a field the model does not keep.
func checkedField(wireType protowire.Type, buf []byte, pos int, f fieldSchema) (int, bool, error) {
	next, err := checkField(buf, pos, wireType, f)
	return next, true, err
}

var (
	schemaURLField   = fieldSchema{name: "SchemaUrl", kind: kindBytes}
	descriptionField = fieldSchema{name: "Description", kind: kindBytes}
	metadataField    = fieldSchema{name: "Metadata", kind: kindMessage, nested: &keyValueSchema}
	exemplarsField   = fieldSchema{name: "Exemplars", kind: kindMessage, nested: &exemplarSchema}
	droppedField     = fieldSchema{name: "DroppedAttributesCount", kind: kindVarint}
	entityRefsField  = fieldSchema{name: "EntityRefs", kind: kindMessage, nested: &entityRefSchema}
	scopeField       = fieldSchema{name: "Scope", kind: kindMessage, nested: &scopeSchema}
)

func (d *decoder) resourceMetrics(buf []byte) (ResourceMetrics, error) {
	var rm ResourceMetrics
	var deprecated []ScopeMetrics
	err := fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		switch field {
		case 1:
			value, next, err := lenField(wireType, "Resource", buf, pos)
			if err != nil {
				return 0, true, err
			}
			attrs, err := d.resource(value)
			if len(rm.Resource) > 0 {
				// A repeated resource field merges into the first, as pdata does.
				attrs = append(rm.Resource[:len(rm.Resource):len(rm.Resource)], attrs...)
			}
			rm.Resource = attrs
			return next, true, err
		case 2, 1000:
			name := "ScopeMetrics"
			if field == 1000 {
				name = "DeprecatedScopeMetrics"
			}
			value, next, err := lenField(wireType, name, buf, pos)
			if err != nil {
				return 0, true, err
			}
			sm, err := d.scopeMetrics(value)
			if field == 2 {
				rm.ScopeMetrics = append(rm.ScopeMetrics, sm)
			} else {
				deprecated = append(deprecated, sm)
			}
			return next, true, err
		case 3:
			return checkedField(wireType, buf, pos, schemaURLField)
		}
		return 0, false, nil
	})
	if len(rm.ScopeMetrics) == 0 {
		rm.ScopeMetrics = deprecated // pdata's MigrateMetrics
	}
	return rm, err
}

func (d *decoder) resource(buf []byte) (Attributes, error) {
	start := len(d.kvs)
	d.inResource = true
	defer func() { d.inResource = false }()
	err := fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		switch field {
		case 1:
			return d.attribute(wireType, "Attributes", buf, pos)
		case 2:
			return checkedField(wireType, buf, pos, droppedField)
		case 3:
			return checkedField(wireType, buf, pos, entityRefsField)
		}
		return 0, false, nil
	})
	return d.attributesFrom(start), err
}

// attributesFrom returns the attributes appended since start, capped so that appending to
// them never writes into a later message's.
func (d *decoder) attributesFrom(start int) Attributes {
	if start == len(d.kvs) {
		return nil
	}
	return Attributes(d.kvs[start:len(d.kvs):len(d.kvs)])
}

func (d *decoder) scopeMetrics(buf []byte) (ScopeMetrics, error) {
	var sm ScopeMetrics
	start := len(d.metrics)
	err := fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		switch field {
		case 1:
			return checkedField(wireType, buf, pos, scopeField)
		case 2:
			value, next, err := lenField(wireType, "Metrics", buf, pos)
			if err != nil {
				return 0, true, err
			}
			m, err := d.metric(value)
			d.metrics = append(d.metrics, m)
			return next, true, err
		case 3:
			return checkedField(wireType, buf, pos, schemaURLField)
		}
		return 0, false, nil
	})
	if start < len(d.metrics) {
		sm.Metrics = d.metrics[start:len(d.metrics):len(d.metrics)]
	}
	return sm, err
}

func (d *decoder) metric(buf []byte) (Metric, error) {
	var m Metric
	err := fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		switch field {
		case 1, 3:
			name := "Name"
			if field == 3 {
				name = "Unit"
			}
			value, next, err := lenField(wireType, name, buf, pos)
			if err != nil {
				return 0, true, err
			}
			if field == 1 {
				m.Name = d.string(value)
			} else {
				m.Unit = d.string(value)
			}
			return next, true, nil
		case 2:
			return checkedField(wireType, buf, pos, descriptionField)
		case 5, 7, 9, 10, 11:
			typ := dataFields[field]
			value, next, err := lenField(wireType, typ.String(), buf, pos)
			if err != nil {
				return 0, true, err
			}
			// The data is a oneof: the last one on the wire replaces any before it.
			m = Metric{Name: m.Name, Unit: m.Unit, Type: typ}
			return next, true, d.data(&m, value)
		case 12:
			return checkedField(wireType, buf, pos, metadataField)
		}
		return 0, false, nil
	})
	return m, err
}

var dataFields = map[int32]pmetric.MetricType{5: pmetric.MetricTypeGauge, 7: pmetric.MetricTypeSum,
	9: pmetric.MetricTypeHistogram, 10: pmetric.MetricTypeExponentialHistogram, 11: pmetric.MetricTypeSummary}

// data decodes a Gauge, Sum, Histogram, ExponentialHistogram or Summary message into m.
func (d *decoder) data(m *Metric, buf []byte) error {
	numbers, histograms, others := len(d.numbers), len(d.histograms), len(d.others)
	err := fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		switch {
		case field == 1:
			value, next, err := lenField(wireType, "DataPoints", buf, pos)
			if err != nil {
				return 0, true, err
			}
			switch m.Type {
			case pmetric.MetricTypeGauge, pmetric.MetricTypeSum:
				err = d.numberPoint(value)
			case pmetric.MetricTypeHistogram:
				err = d.histogramPoint(value)
			case pmetric.MetricTypeExponentialHistogram:
				err = d.otherPoint(value, exponentialHistogramPoint)
			default:
				err = d.otherPoint(value, summaryPoint)
			}
			return next, true, err
		case field == 2 && m.Type != pmetric.MetricTypeGauge && m.Type != pmetric.MetricTypeSummary:
			v, next, err := varintField(wireType, "AggregationTemporality", buf, pos)
			m.Temporality = pmetric.AggregationTemporality(int32(v))
			return next, true, err
		case field == 3 && m.Type == pmetric.MetricTypeSum:
			v, next, err := varintField(wireType, "IsMonotonic", buf, pos)
			m.Monotonic = v != 0
			return next, true, err
		}
		return 0, false, nil
	})
	if numbers < len(d.numbers) {
		m.Numbers = d.numbers[numbers:len(d.numbers):len(d.numbers)]
	}
	if histograms < len(d.histograms) {
		m.Histograms = d.histograms[histograms:len(d.histograms):len(d.histograms)]
	}
	if others < len(d.others) {
		m.Others = d.others[others:len(d.others):len(d.others)]
	}
	return err
}

func (d *decoder) numberPoint(buf []byte) error {
	var p NumberPoint
	start := len(d.kvs)
	var err error
	for pos := 0; pos < len(buf) && err == nil; {
		var field int32
		var wireType protowire.Type
		if field, wireType, pos, err = consumeTag(buf, pos); err != nil {
			break
		}
		var v uint64
		switch field {
		case 7:
			pos, _, err = d.attribute(wireType, "Attributes", buf, pos)
		case 2, 3, 4, 6:
			if v, pos, err = fixed64Field(wireType, numberPointField(field), buf, pos); err != nil {
				break
			}
			switch field {
			case 2:
				p.Start = pcommon.Timestamp(v)
			case 3:
				p.Time = pcommon.Timestamp(v)
			case 4:
				p.ValueType, p.Double, p.Int = pmetric.NumberDataPointValueTypeDouble, math.Float64frombits(v), 0
			case 6:
				p.ValueType, p.Double, p.Int = pmetric.NumberDataPointValueTypeInt, 0, int64(v)
			}
		case 5:
			pos, _, err = checkedField(wireType, buf, pos, exemplarsField)
		case 8:
			v, pos, err = varintField(wireType, "Flags", buf, pos)
			p.Flags = uint32(v)
		default:
			pos, err = consumeUnknown(buf, pos, wireType)
		}
	}
	p.Attributes = d.attributesFrom(start)
	d.numbers = append(d.numbers, p)
	return err
}

// numberPointField names a fixed64 field of NumberDataPoint (for errors: no lookup per field).
func numberPointField(field int32) string {
	switch field {
	case 2:
		return "StartTimeUnixNano"
	case 3:
		return "TimeUnixNano"
	case 4:
		return "AsDouble"
	}
	return "AsInt"
}

func (d *decoder) histogramPoint(buf []byte) error {
	if d.histograms == nil {
		// The agent's latency histograms: about 1 KiB of body each, 28 counts.
		d.histograms = make([]HistogramPoint, 0, d.size/1024+1)
		d.counts = make([]uint64, 0, d.size/32+28)
	}
	var p HistogramPoint
	start := len(d.kvs)
	d.pointCounts, d.pointBounds = d.pointCounts[:0], d.pointBounds[:0]
	err := fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		switch field {
		case 9:
			return d.attribute(wireType, "Attributes", buf, pos)
		case 2, 3, 4, 5, 11, 12:
			v, next, err := fixed64Field(wireType, histogramPointField(field), buf, pos)
			switch field {
			case 2:
				p.Start = pcommon.Timestamp(v)
			case 3:
				p.Time = pcommon.Timestamp(v)
			case 4:
				p.Count = v
			case 5:
				p.Sum, p.HasSum = math.Float64frombits(v), true
			}
			return next, true, err
		case 6, 7:
			return d.fixed64s(field, wireType, buf, pos)
		case 8:
			return checkedField(wireType, buf, pos, exemplarsField)
		case 10:
			v, next, err := varintField(wireType, "Flags", buf, pos)
			p.Flags = uint32(v)
			return next, true, err
		}
		return 0, false, nil
	})
	p.Attributes = d.attributesFrom(start)
	if len(d.pointCounts) > 0 {
		at := len(d.counts)
		d.counts = append(d.counts, d.pointCounts...)
		p.BucketCounts = d.counts[at:len(d.counts):len(d.counts)]
	}
	if n := len(d.histograms); n > 0 && slices.Equal(d.histograms[n-1].ExplicitBounds, d.pointBounds) {
		// Histograms of one metric share their bounds: share the slice too (it is never written).
		p.ExplicitBounds = d.histograms[n-1].ExplicitBounds
	} else if len(d.pointBounds) > 0 {
		at := len(d.bounds)
		d.bounds = append(d.bounds, d.pointBounds...)
		p.ExplicitBounds = d.bounds[at:len(d.bounds):len(d.bounds)]
	}
	d.histograms = append(d.histograms, p)
	return err
}

// histogramPointField names a fixed64 field of HistogramDataPoint (for errors).
func histogramPointField(field int32) string {
	switch field {
	case 2:
		return "StartTimeUnixNano"
	case 3:
		return "TimeUnixNano"
	case 4:
		return "Count"
	case 5:
		return "Sum"
	case 11:
		return "Min"
	}
	return "Max"
}

// fixed64s reads bucket_counts (6) or explicit_bounds (7), packed or not. As in pdata, a packed
// run replaces what came before and an unpacked value is appended.
func (d *decoder) fixed64s(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
	name := "BucketCounts"
	if field == 7 {
		name = "ExplicitBounds"
	}
	add := func(v uint64) {
		if field == 6 {
			d.pointCounts = append(d.pointCounts, v)
		} else {
			d.pointBounds = append(d.pointBounds, math.Float64frombits(v))
		}
	}
	switch wireType {
	case protowire.Fixed64Type:
		v, next, err := consumeFixed64(buf, pos)
		if err == nil {
			add(v)
		}
		return next, true, err
	case protowire.BytesType:
		packed, next, err := consumeLen(buf, pos)
		if err != nil {
			return 0, true, err
		}
		if len(packed)%8 != 0 {
			return 0, true, fmt.Errorf("proto: invalid field len = %d for field %s", len(packed)%8, name)
		}
		if field == 6 {
			d.pointCounts = d.pointCounts[:0]
		} else {
			d.pointBounds = d.pointBounds[:0]
		}
		for at := 0; at < len(packed); at += 8 {
			v, _, _ := consumeFixed64(packed, at)
			add(v)
		}
		return next, true, nil
	}
	return 0, true, wrongWireType(wireType, name)
}

// The fields of the data points the model keeps only times and attributes of.
var (
	exponentialHistogramPoint = pointSchema{attributes: 1, schema: messageSchema{
		4: {name: "Count", kind: kindFixed64}, 5: {name: "Sum", kind: kindFixed64}, 6: {name: "Scale", kind: kindVarint},
		7: {name: "ZeroCount", kind: kindFixed64}, 8: {name: "Positive", kind: kindMessage, nested: &bucketsSchema},
		9: {name: "Negative", kind: kindMessage, nested: &bucketsSchema}, 10: {name: "Flags", kind: kindVarint},
		11: exemplarsField, 12: {name: "Min", kind: kindFixed64}, 13: {name: "Max", kind: kindFixed64},
		14: {name: "ZeroThreshold", kind: kindFixed64}}}
	summaryPoint = pointSchema{attributes: 7, schema: messageSchema{
		4: {name: "Count", kind: kindFixed64}, 5: {name: "Sum", kind: kindFixed64},
		6: {name: "QuantileValues", kind: kindMessage, nested: &quantileSchema}, 8: {name: "Flags", kind: kindVarint}}}
)

type pointSchema struct {
	attributes int32
	schema     messageSchema // the fields besides attributes and the times (2, 3)
}

func (d *decoder) otherPoint(buf []byte, s pointSchema) error {
	var p OtherPoint
	start := len(d.kvs)
	err := fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		switch field {
		case s.attributes:
			return d.attribute(wireType, "Attributes", buf, pos)
		case 2:
			v, next, err := fixed64Field(wireType, "StartTimeUnixNano", buf, pos)
			p.Start = pcommon.Timestamp(v)
			return next, true, err
		case 3:
			v, next, err := fixed64Field(wireType, "TimeUnixNano", buf, pos)
			p.Time = pcommon.Timestamp(v)
			return next, true, err
		}
		if f, ok := s.schema[field]; ok {
			return checkedField(wireType, buf, pos, f)
		}
		return 0, false, nil
	})
	p.Attributes = d.attributesFrom(start)
	d.others = append(d.others, p)
	return err
}

// attribute decodes one KeyValue field and appends it to the attributes being collected.
func (d *decoder) attribute(wireType protowire.Type, name string, buf []byte, pos int) (int, bool, error) {
	value, next, err := lenField(wireType, name, buf, pos)
	if err != nil {
		return 0, true, err
	}
	kv, err := d.keyValue(value)
	d.kvs = append(d.kvs, kv)
	return next, true, err
}

func (d *decoder) keyValue(buf []byte) (KeyValue, error) {
	var kv KeyValue
	var err error
	for pos := 0; pos < len(buf) && err == nil; {
		var field int32
		var wireType protowire.Type
		if field, wireType, pos, err = consumeTag(buf, pos); err != nil {
			break
		}
		var value []byte
		switch field {
		case 1:
			value, pos, err = lenField(wireType, "Key", buf, pos)
			kv.Key = d.string(value)
		case 2:
			if value, pos, err = lenField(wireType, "Value", buf, pos); err == nil {
				// A repeated value field merges into the first: a later oneof member replaces it.
				err = d.anyValue(&kv.Value, value)
			}
		case 3:
			_, pos, err = varintField(wireType, "KeyStrindex", buf, pos)
		default:
			pos, err = consumeUnknown(buf, pos, wireType)
		}
	}
	return kv, err
}

// anyValue decodes an AnyValue into v. Lists and maps inside a value get their own slices
// (not the shared attribute array, which holds the attributes being collected).
func (d *decoder) anyValue(v *Value, buf []byte) error {
	var err error
	for pos := 0; pos < len(buf) && err == nil; {
		var field int32
		var wireType protowire.Type
		if field, wireType, pos, err = consumeTag(buf, pos); err != nil {
			break
		}
		var value []byte
		var n uint64
		switch field {
		case 1:
			if value, pos, err = lenField(wireType, "StringValue", buf, pos); err != nil {
				break
			}
			var str string
			if d.inResource {
				str = string(value)
			} else {
				str = d.string(value)
			}
			*v = Value{Type: pcommon.ValueTypeStr, Str: str}
		case 2, 3, 8:
			if n, pos, err = varintField(wireType, anyValueSchema[field].name, buf, pos); err != nil {
				break
			}
			switch field {
			case 2:
				*v = Value{Type: pcommon.ValueTypeBool, Bool: n != 0}
			case 3:
				*v = Value{Type: pcommon.ValueTypeInt, Int: int64(n)}
			case 8:
				*v = Value{} // a string-table index: pdata shows an empty value
			}
		case 4:
			n, pos, err = fixed64Field(wireType, "DoubleValue", buf, pos)
			*v = Value{Type: pcommon.ValueTypeDouble, Double: math.Float64frombits(n)}
		case 5, 6, 7:
			if value, pos, err = lenField(wireType, anyValueSchema[field].name, buf, pos); err != nil {
				break
			}
			switch field {
			case 5:
				*v = SliceValue([]Value{})
				err = d.arrayValue(v.composite, value)
			case 6:
				*v = MapValue(Attributes{})
				err = d.keyValueList(v.composite, value)
			case 7:
				*v = BytesValue(append([]byte{}, value...))
			}
		default:
			pos, err = consumeUnknown(buf, pos, wireType)
		}
	}
	return err
}

func (d *decoder) arrayValue(v *composite, buf []byte) error {
	return fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		if field != 1 {
			return 0, false, nil
		}
		value, next, err := lenField(wireType, "Values", buf, pos)
		if err != nil {
			return 0, true, err
		}
		v.slice = append(v.slice, Value{})
		return next, true, d.anyValue(&v.slice[len(v.slice)-1], value)
	})
}

func (d *decoder) keyValueList(v *composite, buf []byte) error {
	return fields(buf, func(field int32, wireType protowire.Type, buf []byte, pos int) (int, bool, error) {
		if field != 1 {
			return 0, false, nil
		}
		value, next, err := lenField(wireType, "Values", buf, pos)
		if err != nil {
			return 0, true, err
		}
		kv, err := d.keyValue(value)
		v.kvs = append(v.kvs, kv)
		return next, true, err
	})
}
