package blocksamples

import "testing"

func TestRingKeepsNewestWithinCapacity(t *testing.T) {
	r := NewRing(4)
	for i := range 10 {
		r.Push(Sample{Sector: uint64(i)})
		if r.Len() > r.Capacity() {
			t.Fatalf("len %d above capacity %d", r.Len(), r.Capacity())
		}
	}
	if got := r.Stats(); got.Kept != 10 || got.Overwritten != 6 {
		t.Errorf("stats %+v, want 10 kept, 6 overwritten", got)
	}
	got := r.Drain()
	if len(got) != 4 || got[0].Sector != 6 || got[3].Sector != 9 {
		t.Errorf("drained %+v, want sectors 6..9 oldest first", got)
	}
	if r.Len() != 0 {
		t.Errorf("len %d after drain", r.Len())
	}
	r.Push(Sample{Sector: 42})
	if got := r.Drain(); len(got) != 1 || got[0].Sector != 42 {
		t.Errorf("after drain and one push: %+v", got)
	}
}
