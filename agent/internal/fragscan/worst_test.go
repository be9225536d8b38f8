package fragscan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func TestWorstFilesKeepsTheMostFragmentedInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []FileExtents
	w := worstFiles{limit: 10}
	for i := range 5000 {
		f := FileExtents{Path: fmt.Sprintf("/data/f%05d", i), Extents: rng.IntN(300)}
		all = append(all, f)
		w.offer(f)
	}
	sort.Slice(all, func(i, j int) bool { return less(all[j], all[i]) })
	want := all[:10]
	if got := w.sorted(); !slices.Equal(got, want) {
		t.Fatalf("worst files\n got %v\nwant %v", got, want)
	}
	if len(w.files) != 10 {
		t.Fatalf("heap holds %d files, want the limit 10", len(w.files))
	}
}

func TestWorstFilesLeavesOutUnfragmentedFiles(t *testing.T) {
	w := worstFiles{limit: 5}
	w.offer(FileExtents{Path: "/a", Extents: 1})
	w.offer(FileExtents{Path: "/b", Extents: 0})
	w.offer(FileExtents{Path: "/c", Extents: 3})
	w.offer(FileExtents{Path: "/d", Extents: 3})
	got := w.sorted()
	if len(got) != 2 || got[0].Path != "/c" || got[1].Path != "/d" {
		t.Fatalf("got %v, want /c then /d (equal extents in path order), no unfragmented file", got)
	}
	none := worstFiles{limit: 0}
	none.offer(FileExtents{Path: "/x", Extents: 9})
	if len(none.sorted()) != 0 {
		t.Fatal("limit 0 must keep nothing")
	}
}
