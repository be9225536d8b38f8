package otlp

import (
	"fmt"
	"math"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/encoding/protowire"
)

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
	var err error
	for pos := 0; pos < len(buf) && err == nil; {
		var field int32
		var wireType protowire.Type
		if field, wireType, pos, err = consumeTag(buf, pos); err != nil {
			break
		}
		var v uint64
		switch field {
		case 9:
			pos, _, err = d.attribute(wireType, "Attributes", buf, pos)
		case 2, 3, 4, 5, 11, 12:
			if v, pos, err = fixed64Field(wireType, histogramPointField(field), buf, pos); err != nil {
				break
			}
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
		case 6, 7:
			pos, _, err = d.fixed64s(field, wireType, buf, pos)
		case 8:
			pos, _, err = checkedField(wireType, buf, pos, exemplarsField)
		case 10:
			v, pos, err = varintField(wireType, "Flags", buf, pos)
			p.Flags = uint32(v)
		default:
			pos, err = consumeUnknown(buf, pos, wireType)
		}
	}
	p.Attributes = d.attributesFrom(start)
	if len(d.pointCounts) > 0 {
		at := len(d.counts)
		d.counts = append(d.counts, d.pointCounts...)
		p.BucketCounts = d.counts[at:len(d.counts):len(d.counts)]
	}
	if n := len(d.histograms); n > 0 && slices.EqualFunc(d.histograms[n-1].ExplicitBounds, d.pointBounds, sameBits) {
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
	var err error
	for pos := 0; pos < len(buf) && err == nil; {
		var field int32
		var wireType protowire.Type
		if field, wireType, pos, err = consumeTag(buf, pos); err != nil {
			break
		}
		var v uint64
		switch field {
		case s.attributes:
			pos, _, err = d.attribute(wireType, "Attributes", buf, pos)
		case 2:
			v, pos, err = fixed64Field(wireType, "StartTimeUnixNano", buf, pos)
			p.Start = pcommon.Timestamp(v)
		case 3:
			v, pos, err = fixed64Field(wireType, "TimeUnixNano", buf, pos)
			p.Time = pcommon.Timestamp(v)
		default:
			if f, ok := s.schema[field]; ok {
				pos, _, err = checkedField(wireType, buf, pos, f)
			} else {
				pos, err = consumeUnknown(buf, pos, wireType)
			}
		}
	}
	p.Attributes = d.attributesFrom(start)
	d.others = append(d.others, p)
	return err
}

// sameBits compares floats as stored: -0 is not 0, and a NaN is itself.
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
