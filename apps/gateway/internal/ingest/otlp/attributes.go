package otlp

import (
	"fmt"
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"google.golang.org/protobuf/encoding/protowire"
)

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
			if field != 7 && d.nesting == maxValueNesting {
				err = fmt.Errorf("an attribute value nests lists or maps more than %d levels deep", maxValueNesting)
				break
			}
			switch field {
			case 5:
				*v = SliceValue([]Value{})
				d.nesting++
				err = d.arrayValue(v.composite, value)
				d.nesting--
			case 6:
				*v = MapValue(Attributes{})
				d.nesting++
				err = d.keyValueList(v.composite, value)
				d.nesting--
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
