package mrc

// table maps a key's hash to the slot of its last access: open addressing with linear probing
// and backward-shift deletion, in two flat arrays that double when the keys would fill more than
// 3/4 of them, so the memory follows the keys actually held: a curve whose working set is small
// never pays for its bound (the Estimator's MaxKeys, at most 1 MiB a curve). Hash 0 marks an
// empty cell; callers never store it (see keyHash).
type table struct {
	hashes []uint64
	slots  []int32
	mask   uint64
	n      int
}

func newTable(capacity int) *table {
	size := tableSize(capacity)
	return &table{hashes: make([]uint64, size), slots: make([]int32, size), mask: uint64(size - 1)}
}

// tableSize is the cells a table of capacity keys needs: a load factor at most 3/4 keeps linear
// probes short.
func tableSize(capacity int) int {
	size := 1
	for 3*size < 4*capacity {
		size <<= 1
	}
	return size
}

// grow doubles the cells and puts every key back.
func (t *table) grow() {
	old, oldSlots := t.hashes, t.slots
	*t = table{hashes: make([]uint64, 2*len(old)), slots: make([]int32, 2*len(old)), mask: uint64(2*len(old) - 1)}
	for i, h := range old {
		if h != 0 {
			t.put(h, oldSlots[i])
		}
	}
}

func (t *table) home(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> 1 & t.mask }

// get returns the slot stored for h.
func (t *table) get(h uint64) (int32, bool) {
	for i := t.home(h); ; i = (i + 1) & t.mask {
		switch t.hashes[i] {
		case h:
			return t.slots[i], true
		case 0:
			return 0, false
		}
	}
}

// put stores slot for h, adding h when absent (and growing first if that would load the table
// past 3/4).
func (t *table) put(h uint64, slot int32) {
	if 4*(t.n+1) > 3*len(t.hashes) {
		if _, ok := t.get(h); !ok {
			t.grow()
		}
	}
	for i := t.home(h); ; i = (i + 1) & t.mask {
		switch t.hashes[i] {
		case h:
			t.slots[i] = slot
			return
		case 0:
			t.hashes[i], t.slots[i] = h, slot
			t.n++
			return
		}
	}
}

// remove deletes h, shifting later cells of its probe run back so lookups never stop early.
func (t *table) remove(h uint64) {
	i := t.home(h)
	for t.hashes[i] != h {
		if t.hashes[i] == 0 {
			return
		}
		i = (i + 1) & t.mask
	}
	for j := (i + 1) & t.mask; t.hashes[j] != 0; j = (j + 1) & t.mask {
		k := t.home(t.hashes[j])
		// Move j back into the hole at i unless its home lies cyclically in (i, j].
		if (j > i && (k <= i || k > j)) || (j < i && k <= i && k > j) {
			t.hashes[i], t.slots[i] = t.hashes[j], t.slots[j]
			i = j
		}
	}
	t.hashes[i], t.slots[i] = 0, 0
	t.n--
}

func (t *table) bytes() int { return len(t.hashes)*8 + len(t.slots)*4 }
