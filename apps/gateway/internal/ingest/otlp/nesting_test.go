package otlp_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// nestedExport is an export whose one resource attribute holds a list nested depth levels deep
// (each level an AnyValue whose array_value holds the next), built inside out in one pass.
func nestedExport(depth int) []byte {
	inner := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "x") // string_value
	values, arrays := make([]int, depth+1), make([]int, depth+1)                           // encoded sizes per level
	values[0] = len(inner)
	for i := 1; i <= depth; i++ {
		arrays[i] = 1 + protowire.SizeVarint(uint64(values[i-1])) + values[i-1]
		values[i] = 1 + protowire.SizeVarint(uint64(arrays[i])) + arrays[i]
	}
	value := make([]byte, 0, values[depth])
	for i := depth; i >= 1; i-- {
		value = protowire.AppendVarint(protowire.AppendTag(value, 5, protowire.BytesType), uint64(arrays[i]))   // AnyValue.array_value
		value = protowire.AppendVarint(protowire.AppendTag(value, 1, protowire.BytesType), uint64(values[i-1])) // ArrayValue.values
	}
	value = append(value, inner...)
	message := func(field protowire.Number, body []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, field, protowire.BytesType), body)
	}
	keyValue := append(message(1, []byte("k")), message(2, value)...)
	return message(1, message(1, message(1, keyValue))) // request.resource_metrics.resource.attributes
}

// An attribute value may nest lists and maps 64 levels deep. Deeper is refused with an error
// that says so: an 8 MiB body can nest 800,000 levels, which recursing into overflowed the
// goroutine's stack and ended the whole gateway (a fatal error, not a panic).
func TestAttributeNestingIsBounded(t *testing.T) {
	if _, err := otlp.Decode(nestedExport(64)); err != nil {
		t.Fatalf("64 levels: %v", err)
	}
	for _, depth := range []int{65, 800_000} {
		_, err := otlp.Decode(nestedExport(depth))
		if err == nil || !strings.Contains(err.Error(), "more than 64 levels deep") {
			t.Fatalf("%d levels: error %v; want the nesting refused", depth, err)
		}
	}
}
