package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The interval rows' COPY is encoded here, in PostgreSQL's binary COPY format, from the column
// types the store already reads for its INSERTs (columnTypes): pgx's CopyFrom looks up an encode
// plan for every value (two map lookups by reflect.Type), boxes and re-dispatches sql.Null values
// through driver.Valuer, and streams through a pipe and a goroutine; under the ingest benchmark
// that was a tenth of the gateway's CPU. A value of a type this file does not know (none of
// today's rows has one) sends the whole table through pgx's CopyFrom as before.

// binaryColumn appends one value's field (its int32 length, then its bytes; -1 for NULL); ok is
// false when it does not encode values of v's type.
type binaryColumn func(buf []byte, v any) (_ []byte, ok bool)

// binaryColumns maps format_type() names to their encoders.
var binaryColumns = map[string]binaryColumn{
	"timestamp with time zone": encodeTimestamptz,
	"uuid":                     encodeUUID,
	"text":                     encodeText,
	"double precision":         encodeFloat8,
	"bigint":                   encodeInt8,
	"integer":                  encodeInt4,
	"smallint":                 encodeInt2,
}

// microsecondsFromUnixToY2K: binary timestamps count from 2000-01-01 UTC.
const microsecondsFromUnixToY2K = 946_684_800 * 1_000_000

func appendNull(buf []byte) []byte { return binary.BigEndian.AppendUint32(buf, math.MaxUint32) } // -1

func encodeTimestamptz(buf []byte, v any) ([]byte, bool) {
	t, ok := v.(time.Time)
	if !ok {
		if v == nil {
			return appendNull(buf), true
		}
		return buf, false
	}
	// As pgx encodes it: whole microseconds, the nanoseconds truncated.
	micros := t.Unix()*1_000_000 + int64(t.Nanosecond())/1000 - microsecondsFromUnixToY2K
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(buf, 8), uint64(micros)), true
}

func encodeUUID(buf []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case pgtype.UUID:
		if !x.Valid {
			return appendNull(buf), true
		}
		return append(binary.BigEndian.AppendUint32(buf, 16), x.Bytes[:]...), true
	case nil:
		return appendNull(buf), true
	}
	return buf, false // a string id takes pgx's path (uuidValue parses every id the database gave)
}

func encodeText(buf []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case string:
		return append(binary.BigEndian.AppendUint32(buf, uint32(len(x))), x...), true
	case nil:
		return appendNull(buf), true
	}
	return buf, false
}

func encodeFloat8(buf []byte, v any) ([]byte, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case *float64:
		if x == nil {
			return appendNull(buf), true
		}
		f = *x
	case sql.Null[float64]:
		if !x.Valid {
			return appendNull(buf), true
		}
		f = x.V
	case nil:
		return appendNull(buf), true
	default:
		return buf, false
	}
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(buf, 8), math.Float64bits(f)), true
}

// integer returns v as an int64: null when it is NULL, ok false when v is no integer this file knows.
func integer(v any) (n int64, null, ok bool) {
	switch x := v.(type) {
	case int64:
		return x, false, true
	case int32:
		return int64(x), false, true
	case int16:
		return int64(x), false, true
	case int:
		return int64(x), false, true
	case *int64:
		if x == nil {
			return 0, true, true
		}
		return *x, false, true
	case sql.Null[int64]:
		return x.V, !x.Valid, true
	case sql.Null[int32]:
		return int64(x.V), !x.Valid, true
	case nil:
		return 0, true, true
	}
	return 0, false, false
}

func encodeInt8(buf []byte, v any) ([]byte, bool) {
	n, null, ok := integer(v)
	switch {
	case !ok:
		return buf, false
	case null:
		return appendNull(buf), true
	}
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(buf, 8), uint64(n)), true
}

func encodeInt4(buf []byte, v any) ([]byte, bool) {
	n, null, ok := integer(v)
	switch {
	case !ok || n < math.MinInt32 || n > math.MaxInt32:
		return buf, false // out of range: pgx's path refuses it with its own message
	case null:
		return appendNull(buf), true
	}
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(buf, 4), uint32(int32(n))), true
}

func encodeInt2(buf []byte, v any) ([]byte, bool) {
	n, null, ok := integer(v)
	switch {
	case !ok || n < math.MinInt16 || n > math.MaxInt16:
		return buf, false // out of range: pgx's path refuses it with its own message
	case null:
		return appendNull(buf), true
	}
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint32(buf, 2), uint16(int16(n))), true
}

// binaryCopyHeader is the signature, no flags and no header extension.
var binaryCopyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// encodeBinaryCopy returns rows in the binary COPY format for columns of the given types
// (format_type names by column), or ok false when a column's type or a value's is one it does
// not encode.
func encodeBinaryCopy(columns []string, types map[string]string, rows [][]any) (_ []byte, ok bool) {
	encoders := make([]binaryColumn, len(columns))
	for i, c := range columns {
		if encoders[i], ok = binaryColumns[types[c]]; !ok {
			return nil, false
		}
	}
	buf := make([]byte, 0, len(binaryCopyHeader)+len(rows)*(2+len(columns)*12)+2)
	buf = append(buf, binaryCopyHeader...)
	for _, row := range rows {
		if len(row) != len(columns) {
			return nil, false
		}
		buf = binary.BigEndian.AppendUint16(buf, uint16(len(columns)))
		for i, v := range row {
			if buf, ok = encoders[i](buf, v); !ok {
				return nil, false
			}
		}
	}
	return binary.BigEndian.AppendUint16(buf, math.MaxUint16), true // the trailer: -1
}

// copyRowsEncoded writes rows into table with one binary COPY encoded by encodeBinaryCopy, or
// through pgx's CopyFrom when that cannot encode them.
func copyRowsEncoded(ctx context.Context, conn *pgx.Conn, table string, columns []string, types map[string]string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	data, ok := encodeBinaryCopy(columns, types, rows)
	if !ok {
		return copyRows(ctx, conn, table, columns, rows)
	}
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = pgx.Identifier{c}.Sanitize()
	}
	statement := `COPY ` + pgx.Identifier{table}.Sanitize() + ` (` + strings.Join(names, ", ") + `) FROM STDIN (FORMAT binary)`
	if _, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(data), statement); err != nil {
		return fmt.Errorf("copy %d rows into %s: %w", len(rows), table, err)
	}
	return nil
}
