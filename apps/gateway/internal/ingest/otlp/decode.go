package otlp

import (
	"sync"

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
	nesting    int // lists and maps inside an attribute value, outermost first
}

var decoders = sync.Pool{New: func() any { return &decoder{interned: map[string]string{}} }}

// Interning bounds: strings this short are the attribute keys, devices, directions and metric
// names that repeat in every batch; the table is emptied when it grows past maxInterned.
const (
	maxInternedLength = 64
	maxInterned       = 4096
)

// maxValueNesting bounds lists and maps inside one attribute value. Each level costs a few bytes
// of the body and a recursive call: unbounded, an 8 MiB body nested 800,000 deep overflows the
// goroutine's stack, a fatal error no recover() catches, which would end the gateway for everyone.
const maxValueNesting = 64

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
