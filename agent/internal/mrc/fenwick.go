package mrc

// fenwick counts the live keys' last-access slots: slot t holds 1 when some key was last touched
// at time t. The keys touched since time s are then a prefix-sum difference, O(log n).
type fenwick []int32

func (f fenwick) add(i int, delta int32) {
	for i++; i <= len(f); i += i & -i {
		f[i-1] += delta
	}
}

// sum is the count of slots 0..i inclusive.
func (f fenwick) sum(i int) int32 {
	var s int32
	for i++; i > 0; i -= i & -i {
		s += f[i-1]
	}
	return s
}

// rebuild sets f from a 0/1 slot occupancy in O(n).
func (f fenwick) rebuild(live func(i int) bool) {
	for i := range f {
		f[i] = 0
		if live(i) {
			f[i] = 1
		}
	}
	for i := 1; i <= len(f); i++ {
		if j := i + (i & -i); j <= len(f) {
			f[j-1] += f[i-1]
		}
	}
}
