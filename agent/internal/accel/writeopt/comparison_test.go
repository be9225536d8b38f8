package writeopt

import "testing"

func totals(c *comparison) [4]int64 {
	return [4]int64{c.managed.grownBytes, c.managed.extentsAdded, c.unmanaged.grownBytes, c.unmanaged.extentsAdded}
}

func measureDue(c *comparison, sizes map[string][2]int64) {
	for _, path := range c.due(100) {
		if m, ok := sizes[path]; ok {
			c.measured(path, m[0], m[1])
		} else {
			c.gone(path)
		}
	}
}

func TestComparisonCountsGrowthPerGroupAndResetsOnShrink(t *testing.T) {
	c := newComparison(10)
	c.saw("/d/a.log", true, true)  // created: all its growth counts
	c.saw("/d/b.dat", false, true) // created, no rule
	c.saw("/d/old", false, false)  // existing file first seen: baselined, growth so far unknown
	measureDue(c, map[string][2]int64{"/d/a.log": {8192, 1}, "/d/b.dat": {4096, 1}, "/d/old": {1 << 20, 7}})
	if got, want := totals(c), [4]int64{8192, 1, 4096, 1}; got != want {
		t.Fatalf("after creation: %v, want %v", got, want)
	}
	// Not seen again: not measured again (no FIEMAP for files inotify says nothing about).
	if due := c.due(100); len(due) != 0 {
		t.Fatalf("nothing changed, yet due: %v", due)
	}
	c.saw("/d/a.log", true, false)
	c.saw("/d/b.dat", false, false)
	c.saw("/d/old", false, false)
	measureDue(c, map[string][2]int64{"/d/a.log": {16384, 1}, "/d/b.dat": {12288, 3}, "/d/old": {1<<20 + 4096, 8}})
	if got, want := totals(c), [4]int64{16384, 1, 4096 + 8192 + 4096, 1 + 2 + 1}; got != want {
		t.Fatalf("after growth: %v, want %v", got, want)
	}
	// Truncated to 0, then grown to 4096: the shrink is a reset, only the regrowth counts.
	c.saw("/d/b.dat", false, false)
	measureDue(c, map[string][2]int64{"/d/b.dat": {0, 0}})
	c.saw("/d/b.dat", false, false)
	measureDue(c, map[string][2]int64{"/d/b.dat": {4096, 1}})
	if got, want := totals(c), [4]int64{16384, 1, 16384 + 4096, 4 + 1}; got != want {
		t.Fatalf("after truncate and regrowth: %v, want %v", got, want)
	}
	// Fewer extents after growing (defragmented meanwhile): the bytes count, no negative extents.
	c.saw("/d/a.log", true, false)
	measureDue(c, map[string][2]int64{"/d/a.log": {32768, 0}})
	if got, want := totals(c), [4]int64{32768, 1, 20480, 5}; got != want {
		t.Fatalf("after defragmentation: %v, want %v", got, want)
	}
	// Deleted: dropped.
	c.saw("/d/old", false, false)
	measureDue(c, map[string][2]int64{})
	if _, ok := c.files["/d/old"]; ok {
		t.Fatal("a deleted file is still tracked")
	}
}

func TestComparisonKeepsTheMostRecentlyGrownFilesAndBoundsTheWork(t *testing.T) {
	c := newComparison(2)
	c.saw("/d/1", false, true)
	c.saw("/d/2", false, true)
	measureDue(c, map[string][2]int64{"/d/1": {10, 1}, "/d/2": {10, 1}})
	c.saw("/d/1", false, false)
	measureDue(c, map[string][2]int64{"/d/1": {20, 1}}) // 1 grew after 2
	c.saw("/d/3", false, true)                          // over the bound: 2 (grew least recently) goes
	if _, ok := c.files["/d/2"]; ok || c.files["/d/1"] == nil || c.files["/d/3"] == nil {
		t.Fatalf("tracked %v, want /d/1 and /d/3", c.files)
	}
	c.saw("/d/1", false, false)
	if due := c.due(1); len(due) != 1 || due[0] != "/d/3" {
		t.Fatalf("due(1) = %v, want the longest waiting (/d/3) only", due)
	}
	// Seen again while being measured: measured once more in the next pass.
	c.saw("/d/3", false, false)
	c.measured("/d/3", 4096, 1)
	if due := c.due(10); len(due) != 2 {
		t.Fatalf("due = %v, want /d/1 and /d/3 (written while measured)", due)
	}
}
