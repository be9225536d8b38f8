package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// digest hashes what the batch would store (its rows, host and capabilities) in a canonical
// form: encoders may order attributes, metrics and points any way, so the bytes received are not
// a stable identity, the rows are; the families emit rows in a fixed order. The form is a
// length-prefixed binary walk of the batch's fields in declaration order (every exported field,
// so a field added to a row is hashed without anyone remembering to), map keys sorted. It used
// to be the SHA-256 of the batch's JSON, which cost the gateway two thirds as much CPU as
// decoding the export (docs/benchmarks.md, issue 12, third pass).
// Digests live only in this process's memory (httpapi's recentBatches), so the form may change
// between versions.
func digest(batch telemetry.Batch) [32]byte {
	batch.Digest = [32]byte{}
	buf := digestBuffers.Get().(*[]byte)
	encoded := appendCanonical((*buf)[:0], reflect.ValueOf(batch))
	sum := sha256.Sum256(encoded)
	*buf = encoded
	digestBuffers.Put(buf)
	return sum
}

var digestBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

var timeType = reflect.TypeFor[time.Time]()

// appendCanonical appends v's canonical bytes to b. Every variable-length value carries its
// length and every optional one a presence byte, so no two different values share an encoding.
func appendCanonical(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.LittleEndian.AppendUint64(b, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.LittleEndian.AppendUint64(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		return appendFloat(b, v.Float())
	case reflect.String:
		return appendString(b, v.String())
	case reflect.Slice:
		if b, done := appendHotRows(b, v); done {
			return b
		}
		if v.IsNil() {
			return append(b, 0) // nil and empty differ: a nil list is "not reported"
		}
		b = append(b, 1)
		fallthrough
	case reflect.Array:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for i := range v.Len() {
			b = appendCanonical(b, v.Index(i))
		}
		return b
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, 0)
		}
		b = append(b, 1)
		if v.Kind() == reflect.Interface {
			// The dynamic type is part of the value: *int64(1) and *float64(1) store differently.
			b = appendCanonical(b, reflect.ValueOf(v.Elem().Type().String()))
		}
		return appendCanonical(b, v.Elem())
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int {
			return slices.Compare(appendCanonical(nil, x), appendCanonical(nil, y))
		})
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = appendCanonical(appendCanonical(b, k), v.MapIndex(k))
		}
		return b
	case reflect.Struct:
		if v.Type() == timeType {
			// The instant, not the zone it is displayed in: the store writes timestamptz.
			return appendTime(b, v.Interface().(time.Time))
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				b = appendCanonical(b, v.Field(i))
			}
		}
		return b
	}
	// Channels, functions and the like are not row data; a row type holding one is a mistake
	// the digest test catches (every field must change the digest).
	panic("ingest: cannot digest a " + v.Type().String())
}

var (
	diskIORowsType      = reflect.TypeFor[[]telemetry.DiskIORow]()
	memoryRowsType      = reflect.TypeFor[[]telemetry.MemoryRow]()
	diskLatencyRowsType = reflect.TypeFor[[]telemetry.DiskLatencyRow]()
)

// appendHotRows appends the rows every agent batch carries (disk I/O, memory, latency) field by
// field without reflection, which was most of the walk's cost. done is false for other types.
// A field added to one of these rows must be added here: the digest test fails until it is.
func appendHotRows(b []byte, v reflect.Value) (_ []byte, done bool) {
	switch v.Type() {
	case diskIORowsType:
		rows := v.Interface().([]telemetry.DiskIORow)
		b = appendListHead(b, rows == nil, len(rows))
		for i := range rows {
			r := &rows[i]
			b = appendString(appendTime(b, r.Time), r.Device)
			b = appendFloat(b, r.IntervalSeconds)
			for _, m := range [...]telemetry.Measured{r.ReadOps, r.WriteOps, r.ReadBytes, r.WriteBytes, r.ReadMerged,
				r.WriteMerged, r.ReadTimeMs, r.WriteTimeMs, r.IOTimeMs, r.WeightedIOTimeMs} {
				b = appendMeasured(b, m.V, m.Valid)
			}
			b = appendMeasured(b, int64(r.InProgress.V), r.InProgress.Valid)
		}
	case memoryRowsType:
		rows := v.Interface().([]telemetry.MemoryRow)
		b = appendListHead(b, rows == nil, len(rows))
		for i := range rows {
			r := &rows[i]
			b = appendTime(b, r.Time)
			for _, m := range [...]telemetry.Measured{r.TotalBytes, r.AvailableBytes, r.FreeBytes, r.CachedBytes,
				r.BuffersBytes, r.DirtyBytes, r.SwapTotalBytes, r.SwapFreeBytes} {
				b = appendMeasured(b, m.V, m.Valid)
			}
		}
	case diskLatencyRowsType:
		rows := v.Interface().([]telemetry.DiskLatencyRow)
		b = appendListHead(b, rows == nil, len(rows))
		for i := range rows {
			r := &rows[i]
			b = appendString(appendString(appendTime(b, r.Time), r.Device), r.Operation)
			b = appendFloat(b, r.IntervalSeconds)
			b = binary.LittleEndian.AppendUint64(b, uint64(r.Operations))
			b = appendFloat(b, r.SumSeconds)
			for _, c := range r.Buckets {
				b = binary.LittleEndian.AppendUint64(b, uint64(c))
			}
		}
	default:
		return b, false
	}
	return b, true
}

func appendListHead(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(append(b, 1), uint64(n))
}

func appendTime(b []byte, t time.Time) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.LittleEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

func appendMeasured(b []byte, v int64, valid bool) []byte {
	if !valid {
		return append(b, 0) // NULL, not measured: differs from a measured 0
	}
	return binary.LittleEndian.AppendUint64(append(b, 1), uint64(v))
}
