package mrc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveDistances is LRU stack distance by linear scan of the stack, the textbook definition.
func naiveDistances(keys []uint64) (distances []int, cold int) {
	var stack []uint64 // most recent first
	for _, k := range keys {
		pos := -1
		for i, s := range stack {
			if s == k {
				pos = i
				break
			}
		}
		if pos < 0 {
			cold++
			stack = append([]uint64{k}, stack...)
			continue
		}
		distances = append(distances, pos+1)
		copy(stack[1:pos+1], stack[:pos])
		stack[0] = k
	}
	return distances, cold
}

// TestExactModeMatchesNaiveLRU holds rate 1 to the textbook LRU: with MaxKeys = keys the sample
// never shrinks and the slots run out every ~300 accesses, so renumbering is exercised many
// times; with the default bound and 3,000 keys the arrays double from their first size (256
// keys) four times on the way.
func TestExactModeMatchesNaiveLRU(t *testing.T) {
	for _, c := range []struct{ keys, maxKeys int }{{300, 300}, {3000, DefaultMaxKeys}} {
		exactModeMatchesNaiveLRU(t, c.keys, c.maxKeys)
	}
}

func exactModeMatchesNaiveLRU(t *testing.T, keys, maxKeys int) {
	r := rand.New(rand.NewPCG(7, 7))
	var trace []uint64
	for range 20000 {
		// A skewed mix so distances span the whole range.
		k := uint64(r.IntN(keys))
		if r.IntN(3) == 0 {
			k = uint64(r.IntN(20))
		}
		trace = append(trace, PageKeyHash(8, 42, k))
	}
	e, err := New(Settings{KeyBytes: 4096, MaxKeys: maxKeys, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range trace {
		e.Access(h)
	}
	got, ok := e.Curve(0)
	if !ok {
		t.Fatal("no curve")
	}
	distances, cold := naiveDistances(trace)
	if cold != keys && cold > keys {
		t.Fatalf("cold misses %d, more than %d keys", cold, keys)
	}
	for i, size := range got.SizesBytes {
		hits := 0
		for _, d := range distances {
			if uint64(d)*4096 <= size {
				hits++
			}
		}
		want := float64(hits) / float64(len(trace))
		if diff := got.HitRatios[i] - want; diff > 1e-12 || diff < -1e-12 {
			t.Fatalf("size %d: hit ratio %v, naive LRU says %v", size, got.HitRatios[i], want)
		}
	}
	if got.SampleRate != 1 || got.SampledAccesses != uint64(len(trace)) {
		t.Fatalf("basis: rate %v, sampled %d; want 1 and %d", got.SampleRate, got.SampledAccesses, len(trace))
	}
}

func TestFixedSizeStaysWithinItsBound(t *testing.T) {
	e, err := New(Settings{KeyBytes: 4096, MaxKeys: 512, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000000 {
		e.Access(PageKeyHash(1, 1, uint64(r.IntN(100000))))
		if e.Bytes() > e.MaxBytes() {
			t.Fatalf("memory %d bytes, over the bound's %d", e.Bytes(), e.MaxBytes())
		}
	}
	if e.last.n > 512 || len(e.bigHashes) != e.last.n {
		t.Fatalf("%d keys held (heap %d), bound 512", e.last.n, len(e.bigHashes))
	}
	if e.Bytes() < e.MaxBytes()*9/10 {
		t.Fatalf("a full sample holds %d bytes, its bound says %d", e.Bytes(), e.MaxBytes())
	}
	// 512 of 100,000 keys: the rate must have fallen to about 0.5 %.
	if rate := e.Rate(); rate > 0.01 || rate < 0.002 {
		t.Fatalf("rate %v after holding 512 of 100000 keys, want about 0.005", rate)
	}
	c, _ := e.Curve(0)
	// Uniform over 100,000 keys, 5 % of accesses cold: a cache of half the keys hits about 47 %.
	if v, ok := c.At(50000 * 4096); !ok || v < 0.42 || v > 0.53 {
		t.Fatalf("hit ratio at half the keys %v (%v), want about 0.5", v, ok)
	}
}

func TestDefaultBoundIsUnderOneMiB(t *testing.T) {
	e, err := New(Settings{KeyBytes: 4096, MaxKeys: DefaultMaxKeys, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	if e.MaxBytes() > 1<<20 {
		t.Fatalf("a default curve's bound is %d bytes, over 1 MiB", e.MaxBytes())
	}
	for k := range uint64(4 * DefaultMaxKeys) {
		e.Access(PageKeyHash(1, 1, k))
	}
	if e.last.n != DefaultMaxKeys || e.Bytes() > e.MaxBytes() || e.Bytes() < e.MaxBytes()*9/10 {
		t.Fatalf("full at %d keys: %d bytes, bound %d", e.last.n, e.Bytes(), e.MaxBytes())
	}
}

// A small working set keeps a curve small: 1,000 keys at rate 1 (what 400 MiB of pages are at
// the default 1 %) under the default bound hold an eighth of it.
func TestSmallWorkingSetHoldsLittle(t *testing.T) {
	e, err := New(Settings{KeyBytes: 4096, MaxKeys: DefaultMaxKeys, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		e.Access(PageKeyHash(1, 1, uint64(r.IntN(1000))))
	}
	if e.last.n != 1000 || e.Bytes() > e.MaxBytes()/8 {
		t.Fatalf("%d keys in %d bytes; the bound is %d", e.last.n, e.Bytes(), e.MaxBytes())
	}
}

func TestRejectsBadSettings(t *testing.T) {
	for _, s := range []Settings{{KeyBytes: 0, MaxKeys: 1, Rate: 1}, {KeyBytes: 1, MaxKeys: 0, Rate: 1}, {KeyBytes: 1, MaxKeys: 1, Rate: 0}, {KeyBytes: 1, MaxKeys: 1, Rate: 1.5}} {
		if _, err := New(s); err == nil {
			t.Errorf("New(%+v) accepted", s)
		}
	}
}

func TestTableAgainstMap(t *testing.T) {
	tb := newTable(1000)
	ref := map[uint64]int32{}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200000 {
		h := uint64(r.IntN(3000)) + 1
		if _, ok := ref[h]; ok && r.IntN(2) == 0 {
			tb.remove(h)
			delete(ref, h)
		} else if len(ref) < 1000 {
			tb.put(h, int32(i))
			ref[h] = int32(i)
		}
	}
	if tb.n != len(ref) {
		t.Fatalf("table holds %d, map %d", tb.n, len(ref))
	}
	for h := uint64(1); h <= 3000; h++ {
		got, ok := tb.get(h)
		want, wok := ref[h]
		if ok != wok || got != want {
			t.Fatalf("key %d: table (%d, %v), map (%d, %v)", h, got, ok, want, wok)
		}
	}
}

// SHARDS_adj takes a surplus out of the sample's short reuses (up to hotReach sampled keys
// apart, past the curve's first size too), in proportion; a surplus larger than all of them is
// more keys than their share, and only they go. A deficit is added as hits at the first size.
func TestAdjustmentTakesSurplusFromShortReuses(t *testing.T) {
	e := newAt(Settings{KeyBytes: 4096, MaxKeys: 64, Rate: 1}, 1<<57) // rate 1/128 exactly: the first size is 128 keys
	short, mid, long := bucketOf(64), bucketOf(300), bucketOf(5000)   // 300 keys: past the first size, within hotReach
	e.reuses[short], e.reuses[mid], e.reuses[long], e.cold, e.sampled = 30, 10, 70, 10, 120
	for _, c := range []struct {
		expected               float64 // totalAccesses × rate
		atFirst, atMid, atLong float64
	}{
		{expected: 100, atFirst: 15 / 100.0, atMid: 20 / 100.0, atLong: 90 / 100.0}, // surplus 20 of 40 short: half of each goes
		{expected: 70, atFirst: 0, atMid: 0, atLong: 70 / 80.0},                     // surplus 50 > 40: the 40 go, the ratio does the rest
		{expected: 140, atFirst: 50 / 140.0, atMid: 60 / 140.0, atLong: 130 / 140.0},
	} {
		curve, _ := e.Curve(uint64(c.expected * 128))
		first, _ := curve.At(128 * 4096)
		atMid, _ := curve.At(grid[mid] * 4096)
		atLong, _ := curve.At(grid[long] * 4096)
		if math.Abs(first-c.atFirst) > 1e-12 || math.Abs(atMid-c.atMid) > 1e-12 || math.Abs(atLong-c.atLong) > 1e-12 {
			t.Errorf("expected %v sampled accesses of 120: hit ratio %v at the first size, %v at 300 keys, %v at 5000 keys; want %v, %v and %v",
				c.expected, first, atMid, atLong, c.atFirst, c.atMid, c.atLong)
		}
	}
}

// A window of nothing but short reuses and a surplus still gives a curve, all hits.
func TestAdjustmentOfOnlyShortReuses(t *testing.T) {
	e := newAt(Settings{KeyBytes: 4096, MaxKeys: 64, Rate: 1}, 1<<57)
	e.reuses[bucketOf(64)], e.sampled = 30, 30
	c, _ := e.Curve(20 * 128)
	for i, v := range c.HitRatios {
		if v != 1 {
			t.Fatalf("hit ratio %v at %d bytes, want 1", v, c.SizesBytes[i])
		}
	}
}
