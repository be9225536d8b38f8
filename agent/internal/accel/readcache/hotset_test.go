package readcache

import (
	"testing"
	"time"
)

func TestSequentialReaderBecomesScannerButHotFilesDoNot(t *testing.T) {
	m := heatModel{halfLife: time.Minute, refaultWeight: 8}
	const page, threshold = 4096, 32 << 20
	scan := &fileHeat{sizeBytes: 1 << 30}
	for range 3 { // 16 MiB paged in per sample, sample after sample
		m.update(scan, observation{pagedInPages: 4096, pagedInSpanPages: 4096, pageSize: page, elapsedSeconds: 1}, false, threshold)
	}
	if !scan.scanning || scan.heat != 0 {
		t.Fatalf("a reader paging in 48 MiB in a row is a scanner with no heat: %+v", scan)
	}
	for range scanQuietSamples - 1 {
		m.update(scan, observation{pageSize: page, elapsedSeconds: 1}, false, threshold)
	}
	if !scan.scanning {
		t.Fatalf("a scanner pausing for %d samples is still a scanner: %+v", scanQuietSamples-1, scan)
	}
	m.update(scan, observation{pageSize: page, elapsedSeconds: 1}, false, threshold)
	if scan.scanning || scan.streakBytes != 0 {
		t.Fatalf("%d samples in a row with nothing paged in end the streak: %+v", scanQuietSamples, scan)
	}
	inHotSet := &fileHeat{sizeBytes: 1 << 30}
	for range 3 {
		m.update(inHotSet, observation{pagedInPages: 4096, pagedInSpanPages: 4096, pageSize: page, elapsedSeconds: 1}, true, threshold)
	}
	if inHotSet.scanning {
		t.Fatal("a hot-set file is never dropped behind")
	}
}

// A database reading a large table at random pages in as much as a scanner, but scattered over
// the file: it is never a scanner, so its pages are never dropped behind it (issue 29).
func TestRandomReaderOfALargeFileIsNoScanner(t *testing.T) {
	m := heatModel{halfLife: time.Minute, refaultWeight: 8}
	const page, threshold = 4096, 32 << 20
	random := &fileHeat{sizeBytes: 1 << 30}
	for range 8 { // 16 MiB paged in per sample, spread over the whole 1 GiB file
		m.update(random, observation{pagedInPages: 4096, pagedInSpanPages: 1 << 18, pageSize: page, elapsedSeconds: 1}, false, threshold)
	}
	if random.scanning || random.heat <= 0 {
		t.Fatalf("a random reader paging in 128 MiB scattered over the file is no scanner and has heat: %+v", random)
	}
	scan := &fileHeat{sizeBytes: 1 << 30}
	for range 2 {
		m.update(scan, observation{pagedInPages: 4096, pagedInSpanPages: 4096, pageSize: page, elapsedSeconds: 1}, false, threshold)
	}
	m.update(scan, observation{pagedInPages: 4096, pagedInSpanPages: 1 << 18, pageSize: page, elapsedSeconds: 1}, false, threshold)
	if scan.scanning || scan.streakBytes != 0 {
		t.Fatalf("a scattered sample ends a sequential streak: %+v", scan)
	}
}

func TestCompareFindsTheSpanOfThePagesPagedIn(t *testing.T) {
	before := residency{bits: []uint64{0, 0, 0}}
	after := residency{bits: []uint64{1 << 5, 0, 1<<3 | 1<<60}}
	c := compare(before, after)
	if c.pagedInPages != 3 || c.oldestPage != 5 || c.newestPage != 128+60 || c.spanPages() != 128+60-5+1 {
		t.Fatalf("compare: %+v (span %d), want 3 pages from page 5 to page 188", c, c.spanPages())
	}
	if none := compare(after, after); none.spanPages() != 0 {
		t.Fatalf("nothing paged in has no span: %+v", none)
	}
}

func TestHeatDecaysWithHalfLife(t *testing.T) {
	m := heatModel{halfLife: time.Minute, refaultWeight: 8}
	h := &fileHeat{sizeBytes: 4096, heat: 100}
	m.update(h, observation{pageSize: 4096, elapsedSeconds: 60}, false, 1<<20)
	if h.heat < 49.9 || h.heat > 50.1 {
		t.Fatalf("after one half-life heat = %v, want 50", h.heat)
	}
	m.update(h, observation{retainedPages: 10, pagedInPages: 2, pageSize: 4096, elapsedSeconds: 1}, false, 1<<20)
	// 50·2^(-1/60) + 10 pages × 1 s + 8 × 2 refaulted pages
	if h.heat < 75.4 || h.heat > 75.5 {
		t.Fatalf("heat = %v, want ≈ 75.43", h.heat)
	}
}

func TestRankHotSetPinsFirstThenDensityWithinBudget(t *testing.T) {
	files := map[string]*fileHeat{
		"/d/pinned": {sizeBytes: 50, heat: 0, pinned: true},
		"/d/dense":  {sizeBytes: 10, heat: 100},
		"/d/big":    {sizeBytes: 60, heat: 300},
		"/d/small":  {sizeBytes: 30, heat: 30},
		"/d/cold":   {sizeBytes: 5, heat: 0},
		"/d/scan":   {sizeBytes: 5, heat: 50, scanning: true},
	}
	got := rankHotSet(files, []string{"/d/pinned"}, 100)
	want := []string{"/d/pinned", "/d/dense", "/d/small"} // big (density 5) does not fit after dense (10)
	if len(got) != len(want) {
		t.Fatalf("hot set %+v, want %v", got, want)
	}
	for i, m := range got {
		if m.path != want[i] {
			t.Fatalf("hot set %+v, want %v", got, want)
		}
	}
	if !got[0].pinned || got[1].pinned {
		t.Fatalf("only pins are marked pinned: %+v", got)
	}
	if hot := rankHotSet(files, []string{"/d/pinned"}, 40); len(hot) != 2 || hot[0].path != "/d/dense" {
		t.Fatalf("a pin larger than the budget is left out, smaller files still fit: %+v", hot)
	}
	if order := coldestFirst(files, []string{"/d/dense", "/d/cold", "/d/small"}); order[0] != "/d/cold" || order[2] != "/d/dense" {
		t.Fatalf("coldest first = %v", order)
	}
}
