package fiemap

import "testing"

// The rule is filefrag's (misc/filefrag.c, filefrag_fiemap): a new fragment unless the extent
// is physically dense after the previous one, or offset on disk by as much as in the file.
func TestCounterFollowsFilefragRule(t *testing.T) {
	const k = 4096
	cases := []struct {
		name    string
		extents []Extent
		want    int
	}{
		{"empty file", nil, 0},
		{"one extent", []Extent{{0, 100 * k, 8 * k}}, 1},
		{"written and unwritten halves of one run", []Extent{{0, 100 * k, 4 * k}, {4 * k, 104 * k, 4 * k}}, 1},
		{"two runs far apart", []Extent{{0, 100 * k, 4 * k}, {4 * k, 900 * k, 4 * k}}, 2},
		{"hole punched in a contiguous file", []Extent{{0, 100 * k, 4 * k}, {8 * k, 108 * k, 4 * k}, {16 * k, 116 * k, 4 * k}}, 1},
		{"hole and a jump", []Extent{{0, 100 * k, 4 * k}, {8 * k, 500 * k, 4 * k}}, 2},
		{"physically dense across a hole", []Extent{{0, 100 * k, 4 * k}, {64 * k, 104 * k, 4 * k}}, 1},
		{"file starting with a hole", []Extent{{64 * k, 100 * k, 4 * k}}, 1},
		{"interleaved with another file", []Extent{{0, 100 * k, k}, {k, 102 * k, k}, {2 * k, 104 * k, k}, {3 * k, 105 * k, k}}, 3},
	}
	for _, c := range cases {
		var counter Counter
		for _, e := range c.extents {
			counter.Add(e)
		}
		if got := counter.Extents(); got != c.want {
			t.Errorf("%s: %d extents, want %d", c.name, got, c.want)
		}
	}
}
