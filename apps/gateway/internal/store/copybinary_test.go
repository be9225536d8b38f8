package store

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

var timeType = reflect.TypeFor[time.Time]()

// randomFill gives every field of v a random value: lists of 0-3 elements, pointers and
// sql.Null values NULL a third of the time, integers across their whole range, times with
// nanoseconds on both sides of 2000-01-01 (the binary format's epoch).
func randomFill(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(3) > 0) // mostly true: a sql.Null's Valid
	case reflect.Int32:
		v.SetInt(int64(int32(r.Uint32())))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(r.Uint64()))
	case reflect.Float64:
		v.SetFloat([]float64{0, 1.5, -2.25e-9, 1e300, math.Inf(1), r.NormFloat64() * 1e6}[r.IntN(6)])
	case reflect.String:
		v.SetString([]string{"", "nvme0n1", "/var/lib/pg data", "日本語", "a\tb\\n"}[r.IntN(5)])
	case reflect.Slice:
		n := r.IntN(4)
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			randomFill(r, v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			randomFill(r, v.Index(i))
		}
	case reflect.Pointer:
		if r.IntN(3) == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		randomFill(r, v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(2_000_000_000)-200_000_000, r.Int64N(1_000_000_000))))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && v.Field(i).Kind() != reflect.Interface && v.Type().Field(i).Name != "Values" {
				randomFill(r, v.Field(i))
			}
		}
	}
}

// accelValues fills an acceleration row's values as the mapping does: per column *int64 or
// *float64 by the column's kind, or nil (not sent).
func accelValues(r *rand.Rand, family *telemetry.AccelFamily, types map[string]string, rows []telemetry.AccelRow) {
	for i := range rows {
		rows[i].Values = make([]any, len(family.Columns))
		for j, c := range family.Columns {
			switch {
			case r.IntN(3) == 0:
				rows[i].Values[j] = nil
			case types[c.Column] == "bigint":
				n := int64(r.Uint64())
				rows[i].Values[j] = &n
			default:
				f := r.NormFloat64()
				rows[i].Values[j] = &f
			}
		}
	}
}

// The binary COPY encoded by the store writes exactly what pgx's CopyFrom writes, for the rows
// of every interval table (random batches: NULLs, extremes, times before 2000).
func TestBinaryCopyWritesWhatPgxCopyFromWrites(t *testing.T) {
	s := openTestStore(t)
	ctx := context.Background()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	r := rand.New(rand.NewPCG(12, 3))
	agent := Agent{OrgID: "org-binary-copy", ServerID: "0b5c6a2e-8f1e-4d6a-9a53-1f2d3c4b5a69"}
	var batches []telemetry.Batch
	for range 40 {
		var b telemetry.Batch
		randomFill(r, reflect.ValueOf(&b).Elem())
		batches = append(batches, b)
	}
	tables := []string{}
	for _, c := range IntervalCopies(agent, batches) {
		tables = append(tables, c.Table)
	}
	types, err := s.columnTypes(ctx, conn.Conn(), append(tables, "read_cache", "read_cache_holdout", "write_opt"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range batches {
		accelValues(r, &telemetry.ReadCacheFamily, types["read_cache"], batches[i].Deep.ReadCache)
		accelValues(r, &telemetry.ReadCacheHoldoutFamily, types["read_cache_holdout"], batches[i].Deep.ReadCacheHoldout)
		accelValues(r, &telemetry.WriteOptFamily, types["write_opt"], batches[i].Deep.WriteOpt)
	}
	copies := IntervalCopies(agent, batches)
	if len(copies) < 12 {
		t.Fatalf("the random batches fill %d interval tables; every one should be tested", len(copies))
	}
	for _, c := range copies {
		if _, ok := encodeBinaryCopy(c.Columns, types[c.Table], c.Rows); !ok {
			t.Fatalf("%s: the store's own encoder refused its rows, so COPY would take pgx's path", c.Table)
		}
		for _, target := range []string{"by_pgx", "by_store"} {
			if _, err := conn.Exec(ctx, `CREATE TEMP TABLE `+target+`_`+c.Table+` AS SELECT * FROM `+c.Table+` WITH NO DATA`); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := conn.CopyFrom(ctx, pgx.Identifier{"by_pgx_" + c.Table}, c.Columns, pgx.CopyFromRows(c.Rows)); err != nil {
			t.Fatalf("%s by pgx: %v", c.Table, err)
		}
		if err := copyRowsEncoded(ctx, conn.Conn(), "by_store_"+c.Table, c.Columns, types[c.Table], c.Rows); err != nil {
			t.Fatalf("%s by the store: %v", c.Table, err)
		}
		var missing, extra, stored int
		if err := conn.QueryRow(ctx, `SELECT
				(SELECT count(*) FROM (TABLE by_pgx_`+c.Table+` EXCEPT ALL TABLE by_store_`+c.Table+`) d),
				(SELECT count(*) FROM (TABLE by_store_`+c.Table+` EXCEPT ALL TABLE by_pgx_`+c.Table+`) d),
				(SELECT count(*) FROM by_store_`+c.Table+`)`).Scan(&missing, &extra, &stored); err != nil {
			t.Fatal(err)
		}
		if missing != 0 || extra != 0 || stored != len(c.Rows) {
			t.Errorf("%s: %d rows, %d stored; %d of pgx's rows missing, %d rows pgx did not write", c.Table, len(c.Rows), stored, missing, extra)
		}
	}
}

// A value of a type the encoder does not know sends the table through pgx's CopyFrom instead.
func TestBinaryCopyLeavesUnknownValuesToPgx(t *testing.T) {
	types := map[string]string{"a": "bigint", "b": "integer"}
	if _, ok := encodeBinaryCopy([]string{"a"}, types, [][]any{{"12"}}); ok {
		t.Error("a string for a bigint column was encoded")
	}
	if _, ok := encodeBinaryCopy([]string{"b"}, types, [][]any{{int64(math.MaxInt32) + 1}}); ok {
		t.Error("an int64 beyond an integer column's range was encoded")
	}
	if _, ok := encodeBinaryCopy([]string{"c"}, types, [][]any{{int64(1)}}); ok {
		t.Error("a column of unknown type was encoded")
	}
}
