package otlp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// The wire primitives follow pdata's decoder (pdata/internal/proto) rather than protowire's
// stricter ones where the two differ (a 10-byte varint's last byte, field numbers past 2^29),
// so that exactly the requests pdata accepted are accepted.

var (
	errInvalidLength        = errors.New("proto: negative length found during unmarshaling")
	errIntOverflow          = errors.New("proto: integer overflow")
	errUnexpectedEndOfGroup = errors.New("proto: unexpected end of group")
)

func consumeVarint(buf []byte, pos int) (uint64, int, error) {
	var num uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, 0, errIntOverflow
		}
		if pos >= len(buf) {
			return 0, 0, io.ErrUnexpectedEOF
		}
		b := buf[pos]
		pos++
		num |= uint64(b&0x7F) << shift
		if b < 0x80 {
			return num, pos, nil
		}
	}
}

// consumeTag reads a field's tag; the field number is truncated to 32 bits as pdata does.
func consumeTag(buf []byte, pos int) (int32, protowire.Type, int, error) {
	tag, pos, err := consumeVarint(buf, pos)
	if err != nil {
		return 0, 0, 0, err
	}
	field := int32(tag >> 3)
	if field <= 0 {
		return 0, 0, 0, fmt.Errorf("proto: illegal field %d (tag %d)", field, tag)
	}
	return field, protowire.Type(tag & 7), pos, nil
}

func consumeFixed64(buf []byte, pos int) (uint64, int, error) {
	if pos+8 < pos || pos+8 > len(buf) {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return binary.LittleEndian.Uint64(buf[pos:]), pos + 8, nil
}

func consumeFixed32(buf []byte, pos int) (int, error) {
	if pos+4 < pos || pos+4 > len(buf) {
		return 0, io.ErrUnexpectedEOF
	}
	return pos + 4, nil
}

// consumeLen reads a length-delimited field's length and returns its bytes and the position
// after them.
func consumeLen(buf []byte, pos int) ([]byte, int, error) {
	n, pos, err := consumeVarint(buf, pos)
	if err != nil {
		return nil, 0, err
	}
	length := int(n)
	if length < 0 {
		return nil, 0, errInvalidLength
	}
	end := pos + length
	if end < 0 || end > len(buf) {
		return nil, 0, io.ErrUnexpectedEOF
	}
	return buf[pos:end], end, nil
}

// consumeUnknown skips a field the message does not define, groups included, as pdata does.
func consumeUnknown(buf []byte, pos int, wireType protowire.Type) (int, error) {
	var err error
	depth := 0
	for pos < len(buf) {
		switch wireType {
		case protowire.VarintType:
			_, pos, err = consumeVarint(buf, pos)
			return pos, err
		case protowire.Fixed64Type:
			_, pos, err = consumeFixed64(buf, pos)
			return pos, err
		case protowire.BytesType:
			_, pos, err = consumeLen(buf, pos)
			return pos, err
		case protowire.StartGroupType:
			depth++
		case protowire.EndGroupType:
			if depth == 0 {
				return 0, errUnexpectedEndOfGroup
			}
			depth--
		case protowire.Fixed32Type:
			pos, err = consumeFixed32(buf, pos)
			return pos, err
		default:
			return 0, fmt.Errorf("proto: illegal wireType %d", wireType)
		}
		if depth == 0 {
			return pos, nil
		}
		if _, wireType, pos, err = consumeTag(buf, pos); err != nil {
			return 0, err
		}
	}
	return 0, io.ErrUnexpectedEOF
}

func wrongWireType(wireType protowire.Type, field string) error {
	return fmt.Errorf("proto: wrong wireType = %d for field %s", wireType, field)
}

// fieldKind is how a field the model does not keep is checked while skipped.
type fieldKind int

const (
	kindBytes        fieldKind = iota + 1 // string or bytes
	kindMessage                           // a nested message, checked by its schema
	kindVarint                            // int, bool, enum
	kindFixed64                           // fixed64, double
	kindID                                // a trace or span ID: empty or exactly size bytes
	kindPackedVarint                      // repeated varints, packed or not
)

type fieldSchema struct {
	name   string
	kind   fieldKind
	nested *messageSchema // kindMessage
	size   int            // kindID
}

// messageSchema lists a message's fields as pdata decodes them; others are unknown fields.
type messageSchema map[int32]fieldSchema

// Messages no row reads: skipped, but checked as pdata checks them.
var (
	anyValueSchema, arrayValueSchema, keyValueListSchema, keyValueSchema        messageSchema
	scopeSchema, entityRefSchema, exemplarSchema, bucketsSchema, quantileSchema messageSchema
)

func init() {
	anyValueSchema = messageSchema{1: {name: "StringValue", kind: kindBytes}, 2: {name: "BoolValue", kind: kindVarint},
		3: {name: "IntValue", kind: kindVarint}, 4: {name: "DoubleValue", kind: kindFixed64},
		5: {name: "ArrayValue", kind: kindMessage, nested: &arrayValueSchema},
		6: {name: "KvlistValue", kind: kindMessage, nested: &keyValueListSchema},
		7: {name: "BytesValue", kind: kindBytes}, 8: {name: "StringValueStrindex", kind: kindVarint}}
	arrayValueSchema = messageSchema{1: {name: "Values", kind: kindMessage, nested: &anyValueSchema}}
	keyValueListSchema = messageSchema{1: {name: "Values", kind: kindMessage, nested: &keyValueSchema}}
	keyValueSchema = messageSchema{1: {name: "Key", kind: kindBytes}, 2: {name: "Value", kind: kindMessage, nested: &anyValueSchema},
		3: {name: "KeyStrindex", kind: kindVarint}}
	scopeSchema = messageSchema{1: {name: "Name", kind: kindBytes}, 2: {name: "Version", kind: kindBytes},
		3: {name: "Attributes", kind: kindMessage, nested: &keyValueSchema}, 4: {name: "DroppedAttributesCount", kind: kindVarint}}
	entityRefSchema = messageSchema{1: {name: "SchemaUrl", kind: kindBytes}, 2: {name: "Type", kind: kindBytes},
		3: {name: "IdKeys", kind: kindBytes}, 4: {name: "DescriptionKeys", kind: kindBytes}}
	exemplarSchema = messageSchema{7: {name: "FilteredAttributes", kind: kindMessage, nested: &keyValueSchema},
		2: {name: "TimeUnixNano", kind: kindFixed64}, 3: {name: "AsDouble", kind: kindFixed64}, 6: {name: "AsInt", kind: kindFixed64},
		5: {name: "TraceId", kind: kindID, size: 16}, 4: {name: "SpanId", kind: kindID, size: 8}}
	bucketsSchema = messageSchema{1: {name: "Offset", kind: kindVarint}, 2: {name: "BucketCounts", kind: kindPackedVarint}}
	quantileSchema = messageSchema{1: {name: "Quantile", kind: kindFixed64}, 2: {name: "Value", kind: kindFixed64}}
}

// check walks a message the model does not keep and returns pdata's verdict on it.
func check(buf []byte, schema messageSchema) error {
	for pos := 0; pos < len(buf); {
		field, wireType, next, err := consumeTag(buf, pos)
		if err != nil {
			return err
		}
		pos = next
		f, known := schema[field]
		if !known {
			if pos, err = consumeUnknown(buf, pos, wireType); err != nil {
				return err
			}
			continue
		}
		if pos, err = checkField(buf, pos, wireType, f); err != nil {
			return err
		}
	}
	return nil
}

func checkField(buf []byte, pos int, wireType protowire.Type, f fieldSchema) (int, error) {
	var err error
	switch f.kind {
	case kindVarint:
		if wireType != protowire.VarintType {
			return 0, wrongWireType(wireType, f.name)
		}
		_, pos, err = consumeVarint(buf, pos)
		return pos, err
	case kindFixed64:
		if wireType != protowire.Fixed64Type {
			return 0, wrongWireType(wireType, f.name)
		}
		_, pos, err = consumeFixed64(buf, pos)
		return pos, err
	case kindPackedVarint:
		switch wireType {
		case protowire.VarintType:
			_, pos, err = consumeVarint(buf, pos)
			return pos, err
		case protowire.BytesType:
			var packed []byte
			if packed, pos, err = consumeLen(buf, pos); err != nil {
				return 0, err
			}
			for at := 0; at < len(packed); {
				if _, at, err = consumeVarint(packed, at); err != nil {
					return 0, err
				}
			}
			return pos, nil
		}
		return 0, wrongWireType(wireType, f.name)
	}
	if wireType != protowire.BytesType {
		return 0, wrongWireType(wireType, f.name)
	}
	var value []byte
	if value, pos, err = consumeLen(buf, pos); err != nil {
		return 0, err
	}
	switch f.kind {
	case kindMessage:
		err = check(value, *f.nested)
	case kindID:
		if len(value) != 0 && len(value) != f.size {
			err = fmt.Errorf("proto: %s has %d bytes; expected %d", f.name, len(value), f.size)
		}
	}
	return pos, err
}

// fields calls visit for every field of a message, skipping the fields for which visit
// returns handled false as unknown fields. The messages above the points use it; the points and
// attributes, which occur many times per request, are read in plain loops instead.
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
