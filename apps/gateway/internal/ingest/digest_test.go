package ingest

import (
	"reflect"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// fillAll gives every field of v a distinct non-zero value (every list one element, every
// pointer a target, every interface an *int64), so that the test below can change each leaf.
func fillAll(v reflect.Value, next *int64) {
	*next++
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(*next)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*next))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*next) + 0.5)
	case reflect.String:
		v.SetString("s" + time.Duration(*next).String())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillAll(v.Index(0), next)
	case reflect.Array:
		for i := range v.Len() {
			fillAll(v.Index(i), next)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), next)
	case reflect.Interface:
		n := *next
		v.Set(reflect.ValueOf(&n))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fillAll(k, next)
		fillAll(e, next)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Unix(1_700_000_000+*next, *next)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), next)
			}
		}
	}
}

// leaves calls change once per leaf of v (a value a stored row or the host record depends on)
// with a function that alters that leaf alone.
func leaves(v reflect.Value, path string, change func(path string, alter func())) {
	switch v.Kind() {
	case reflect.Bool:
		change(path, func() { v.SetBool(!v.Bool()) })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		change(path, func() { v.SetInt(v.Int() + 1) })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		change(path, func() { v.SetUint(v.Uint() + 1) })
	case reflect.Float32, reflect.Float64:
		change(path, func() { v.SetFloat(v.Float() * 2) })
	case reflect.String:
		change(path, func() { v.SetString(v.String() + "x") })
	case reflect.Slice:
		change(path+" (nil)", func() { v.Set(reflect.Zero(v.Type())) })
		change(path+" (empty)", func() { v.Set(reflect.MakeSlice(v.Type(), 0, 0)) })
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			leaves(v.Index(i), path+"[]", change)
		}
	case reflect.Pointer:
		change(path+" (nil)", func() { v.Set(reflect.Zero(v.Type())) })
		leaves(v.Elem(), path, change)
	case reflect.Interface:
		change(path+" (nil)", func() { v.Set(reflect.Zero(v.Type())) })
		change(path+" (other type)", func() { f := float64(*v.Elem().Interface().(*int64)); v.Set(reflect.ValueOf(&f)) })
	case reflect.Map:
		change(path+" (key)", func() {
			for _, k := range v.MapKeys() {
				e := v.MapIndex(k)
				v.SetMapIndex(k, reflect.Value{})
				v.SetMapIndex(reflect.ValueOf(k.String()+"x"), e)
			}
		})
	case reflect.Struct:
		if v.Type() == timeType {
			change(path, func() { v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Nanosecond))) })
			return
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && f.Name != "Digest" {
				leaves(v.Field(i), path+"."+f.Name, change)
			}
		}
	}
}

func TestDigestChangesWithEveryStoredValue(t *testing.T) {
	filled := func() telemetry.Batch {
		var next int64
		var batch telemetry.Batch
		fillAll(reflect.ValueOf(&batch).Elem(), &next)
		return batch
	}
	base := digest(filled())
	if digest(filled()) != base {
		t.Fatal("two identically filled batches have different digests")
	}
	probe, total := filled(), 0
	leaves(reflect.ValueOf(&probe).Elem(), "Batch", func(string, func()) { total++ })
	if total < 100 {
		t.Fatalf("walked %d leaves of a filled batch; the walk is broken", total)
	}
	for k := range total {
		batch := filled()
		n, altered := 0, ""
		leaves(reflect.ValueOf(&batch).Elem(), "Batch", func(path string, alter func()) {
			if n == k {
				alter()
				altered = path
			}
			n++
		})
		if digest(batch) == base {
			t.Errorf("changing %s left the digest unchanged", altered)
		}
	}
}

func TestDigestIgnoresTheTimeZoneAndTheDigestField(t *testing.T) {
	at := time.Unix(1_700_000_000, 5)
	a := telemetry.Batch{Seq: 3, Memory: []telemetry.MemoryRow{{Time: at.UTC(), TotalBytes: telemetry.Measure(1)}}}
	b := telemetry.Batch{Seq: 3, Memory: []telemetry.MemoryRow{{Time: at.In(time.FixedZone("x", 3600)), TotalBytes: telemetry.Measure(1)}}}
	b.Digest = [32]byte{1}
	if digest(a) != digest(b) {
		t.Fatal("the same instant in another zone, or a set Digest field, changed the digest")
	}
}
