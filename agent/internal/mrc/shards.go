// Package mrc builds miss-ratio curves from a spatially hashed sample of an access stream:
// fixed-size SHARDS (Waldspurger et al., FAST 2015). A key (a page or a block) is in the sample
// when its 64-bit hash is below a threshold; the sampling rate is threshold / 2^64. Each sampled
// access's exact LRU stack distance among the sampled keys, divided by the rate, estimates its
// distance in the full stream. When the sample holds more than MaxKeys distinct keys the key with
// the largest hash leaves it and the threshold drops to that hash, so memory stays bounded
// whatever the working set; counts gathered at the higher rate are scaled down to the new one.
package mrc

import (
	"fmt"
	"math"
)

// DefaultMaxKeys bounds each curve's sample: 16,384 keys cost 0.92 MiB (see Estimator.MaxBytes),
// under the 1 MiB per curve the agent allows itself. A curve holding fewer keys holds less: its
// arrays start for initialKeys and double as keys come.
const DefaultMaxKeys = 16384

// DefaultRate is the sampling rate a curve starts at: 1 % keeps the error under 0.005 on the
// traces of docs/benchmarks.md while the working set fits MaxKeys / rate keys (6.4 GiB of pages).
const DefaultRate = 0.01

// Settings configure an Estimator.
type Settings struct {
	KeyBytes uint64  // the bytes one key stands for (page size, BlockBytes)
	MaxKeys  int     // distinct sampled keys held at most
	Rate     float64 // the starting sampling rate, (0, 1]
}

func (s Settings) validate() error {
	if s.KeyBytes == 0 || s.MaxKeys <= 0 || !(s.Rate > 0 && s.Rate <= 1) {
		return fmt.Errorf("mrc: key bytes (%d) and max keys (%d) must be positive and the rate (%g) in (0, 1]", s.KeyBytes, s.MaxKeys, s.Rate)
	}
	return nil
}

// Estimator turns sampled accesses into a miss-ratio curve. Not safe for concurrent use.
type Estimator struct {
	keyBytes  uint64
	maxKeys   int
	threshold uint64   // accesses whose hash is below it are in the sample
	last      *table   // key hash → slot of its last access
	bigHashes hashHeap // the live keys, largest hash on top: the next to leave the sample
	touched   fenwick  // 1 at each slot that is some live key's last access
	slotHash  []uint64 // which key a slot belongs to (0: none), to renumber slots
	clock     int      // the next slot

	reuses  []float64 // per grid bucket: sampled reuses at that distance, at the current rate
	cold    float64   // first accesses to a sampled key, at the current rate
	sampled uint64    // sampled accesses in this window
}

// initialKeys is the keys an Estimator's arrays are first made for: a disk or a scope with a
// small working set (at 1 %, 256 keys stand for 100 MiB) never grows them.
const initialKeys = 256

// New makes an Estimator. Its arrays start small and double as the sample grows, up to MaxKeys
// (MaxBytes); they never shrink while the estimator lives.
func New(s Settings) (*Estimator, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	return newAt(s, thresholdFor(s.Rate)), nil
}

func newAt(s Settings, threshold uint64) *Estimator {
	keys := min(s.MaxKeys+1, initialKeys)
	return &Estimator{
		keyBytes:  s.KeyBytes,
		maxKeys:   s.MaxKeys,
		threshold: threshold,
		last:      newTable(keys),
		bigHashes: make(hashHeap, 0, keys),
		touched:   make(fenwick, 2*keys),
		slotHash:  make([]uint64, 2*keys),
		reuses:    make([]float64, len(grid)),
	}
}

// maxSlots is the clock's length at the bound: room for MaxKeys+1 live slots and as many new
// ones between renumberings.
func (e *Estimator) maxSlots() int { return 2*e.maxKeys + 2 }

func thresholdFor(rate float64) uint64 {
	if rate >= 1 {
		return math.MaxUint64
	}
	t := uint64(rate * (1 << 64))
	if rate <= 1.0/StratumKeys {
		// 0.01 × 2^64 rounds a few units above strataEnd − 1, where the kernel would have to
		// hash every key of a group instead of its chosen one (stratifiedHash): the difference
		// is 4 in 2^64 of the rate.
		t = min(t, strataEnd-1)
	}
	return t
}

// Rate is the current sampling rate.
func (e *Estimator) Rate() float64 { return float64(e.threshold) / (1 << 64) }

// Threshold is the current hash threshold: the kernel can drop accesses at or above it.
func (e *Estimator) Threshold() uint64 { return e.threshold }

// Access records one access to the key with hash h; it is ignored unless h is in the sample.
func (e *Estimator) Access(h uint64) {
	if h >= e.threshold {
		return
	}
	if h == 0 {
		h = 1 // 0 marks empty cells; one hash value in 2^64 more or less does not bias the sample
	}
	e.sampled++
	if e.clock == len(e.slotHash) {
		e.renumber()
	}
	now := e.clock
	e.clock++
	if slot, ok := e.last.get(h); ok {
		keysSince := e.touched.sum(now-1) - e.touched.sum(int(slot))
		e.touched.add(int(slot), -1)
		e.slotHash[slot] = 0
		// keysSince sampled keys stand for keysSince/rate keys of the full stream (an unbiased
		// estimate: each key is in the sample with probability rate); the distance counts the
		// key itself once, unscaled.
		e.reuses[bucketOf(1+float64(keysSince)/e.Rate())]++
	} else {
		e.cold++
		if len(e.bigHashes) == cap(e.bigHashes) {
			// Grown by hand, not by append, so that the heap never holds more than MaxKeys+1.
			grown := make(hashHeap, len(e.bigHashes), min(2*cap(e.bigHashes), e.maxKeys+1))
			copy(grown, e.bigHashes)
			e.bigHashes = grown
		}
		e.bigHashes.push(h)
	}
	e.touched.add(now, 1)
	e.slotHash[now] = h
	e.last.put(h, int32(now))
	if e.last.n > e.maxKeys {
		e.shrink()
	}
}

// shrink drops the largest-hash key from the sample and lowers the threshold to its hash, so
// that key and every larger one stay out from now on.
func (e *Estimator) shrink() {
	h := e.bigHashes.pop()
	if slot, ok := e.last.get(h); ok {
		e.touched.add(int(slot), -1)
		e.slotHash[slot] = 0
		e.last.remove(h)
	}
	oldRate := e.Rate()
	e.threshold = h
	scale := e.Rate() / oldRate
	for i := range e.reuses {
		e.reuses[i] *= scale
	}
	e.cold *= scale
}

// renumber packs the live keys' slots to the front, oldest first, when the clock runs out; when
// live keys hold more than half the slots, the slots double first (up to maxSlots), so a
// renumbering always leaves at least as many free slots as live ones and its cost stays O(1) an
// access.
func (e *Estimator) renumber() {
	hashes := e.slotHash
	if size := len(hashes); 2*e.last.n > size && size < e.maxSlots() {
		size = min(2*size, e.maxSlots())
		hashes, e.touched = make([]uint64, size), make(fenwick, size)
	}
	n := 0
	for _, h := range e.slotHash {
		if h != 0 {
			hashes[n] = h
			e.last.put(h, int32(n))
			n++
		}
	}
	clear(hashes[n:])
	e.slotHash = hashes
	e.touched.rebuild(func(i int) bool { return i < n })
	e.clock = n
}

// Curve is a miss-ratio curve: the hit ratio an LRU cache of each size would have had.
type Curve struct {
	SizesBytes      []uint64  // strictly ascending
	HitRatios       []float64 // in [0, 1], non-decreasing
	SampleRate      float64   // the rate the counts are expressed at
	SampledAccesses uint64    // sampled accesses the curve rests on
}

// Curve is the window's curve, false when no access was sampled. totalAccesses, when known (the
// kernel counts every access of the whole stream), corrects the sample's size to the expected
// totalAccesses × rate, SHARDS_adj: a hot key that happens to be sampled (or missed) otherwise
// shifts the whole curve. Pass 0 when unknown.
//
// SHARDS_adj adds a deficit as hits below the curve's first size, where a missed hot key's
// accesses would be. A surplus is taken out of the sample's short reuses, those with at most
// hotReach sampled keys between (where a sampled hot key's reuses fall: at 1 %, a key with
// 0.1 % of the accesses sees about 10 sampled keys between two of its own), in proportion, and
// at most all of them: past that it is not a hot key but more keys in the sample than their
// share, which scales every count alike, so the ratio handles the rest. Taking a surplus from
// the first bucket alone (before) left a sampled hot key's surplus as hits at every size (one
// Zipf 0.8 sample in eight in docs/benchmarks.md: MAE 0.05 over the curve); taking all of it in
// every case made over-sampled uniform curves worse (log-grid MAE 0.0016 → 0.0051). A reach of
// 4 sampled keys left Zipf 0.8 at 0.0068 (worst 0.0197) over the curve, 16 at 0.0050 (0.0081).
func (e *Estimator) Curve(totalAccesses uint64) (Curve, bool) {
	if e.sampled == 0 {
		return Curve{}, false
	}
	// A sample cannot tell sizes below 1/rate keys apart (its smallest distance is one sampled
	// key), so the curve starts there; the reuses below fold into its first point.
	first := bucketOf(1 / e.Rate())
	shortEnd := bucketOf(1 + hotReach/e.Rate())
	reuses := append([]float64(nil), e.reuses...)
	total, short := e.cold, 0.0
	lastBucket := 0
	for i, r := range reuses {
		total += r
		if i <= shortEnd {
			short += r
		}
		if r > 0 {
			lastBucket = i
		}
	}
	if totalAccesses > 0 {
		diff := float64(totalAccesses)*e.Rate() - total
		if diff >= 0 {
			reuses[0] += diff
			total += diff
		} else if short > 0 && short < total {
			// (A sample of nothing but short reuses keeps them all: its curve is all hits, and
			// removing them would leave nothing to divide by.)
			remove := min(-diff, short)
			for i := 0; i <= shortEnd; i++ {
				reuses[i] *= 1 - remove/short
			}
			total -= remove
		}
	}
	c := Curve{SampleRate: e.Rate(), SampledAccesses: e.sampled}
	hits := 0.0
	for i := 0; i <= max(lastBucket, first); i++ {
		hits += reuses[i]
		if i >= first {
			c.SizesBytes = append(c.SizesBytes, grid[i]*e.keyBytes)
			c.HitRatios = append(c.HitRatios, min(hits/total, 1))
		}
	}
	return c, true
}

// hotReach is how many sampled keys may lie between two accesses of a hot key: SHARDS_adj
// takes a surplus out of reuses that short.
const hotReach = 16

// ResetWindow starts a new window: the counts restart, the LRU stack and the rate carry on, so
// the first access of a window to a key seen before is a reuse, not a cold miss.
func (e *Estimator) ResetWindow() {
	clear(e.reuses)
	e.cold, e.sampled = 0, 0
}

// Bytes is the memory the estimator holds now.
func (e *Estimator) Bytes() int {
	return e.last.bytes() + cap(e.bigHashes)*8 + len(e.touched)*4 + len(e.slotHash)*8 + len(e.reuses)*8
}

// MaxBytes is the memory the estimator holds once its sample reaches MaxKeys, the most it ever
// holds.
func (e *Estimator) MaxBytes() int {
	return tableSize(e.maxKeys+1)*12 + (e.maxKeys+1)*8 + e.maxSlots()*(4+8) + len(e.reuses)*8
}

// hashHeap is a max-heap of key hashes (hand-written: container/heap would box every uint64).
type hashHeap []uint64

func (h *hashHeap) push(x uint64) {
	*h = append(*h, x)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] >= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *hashHeap) pop() uint64 {
	a := *h
	top := a[0]
	a[0] = a[len(a)-1]
	a = a[:len(a)-1]
	for i := 0; ; {
		big, l, r := i, 2*i+1, 2*i+2
		if l < len(a) && a[l] > a[big] {
			big = l
		}
		if r < len(a) && a[r] > a[big] {
			big = r
		}
		if big == i {
			break
		}
		a[i], a[big] = a[big], a[i]
		i = big
	}
	*h = a
	return top
}
