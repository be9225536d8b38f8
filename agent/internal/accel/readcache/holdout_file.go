//go:build linux || windows

package readcache

import "math/bits"

// A managed file as the cache treats it under the control group: only the pages outside the
// control are the cache's to load, pin, drop or count against the budget; the control pages are
// left to the kernel and the workload, as if the cache did not run.

// fileDraw is one file's control groups under the draw in force, with the pages they cover.
type fileDraw struct {
	key     FileKey
	size    int64
	holdout Holdout
	groups  controlGroups
	// mask has one bit per page, in residency's layout: set for the control pages.
	mask         []uint64
	controlBytes int64
	done         bool // drawn at least once
}

// redraw brings t's draw up to date with its identity, size and the draw in force.
func (f *Feature) redraw(t *trackedFile, current residency) {
	holdout := f.drawn
	if !current.keyKnown {
		holdout = Holdout{}
	}
	d := &t.draw
	if d.done && d.key == current.key && d.size == current.sizeBytes && d.holdout == holdout {
		return
	}
	*d = fileDraw{key: current.key, size: current.sizeBytes, holdout: holdout, groups: holdout.drawGroups(current.key, current.sizeBytes), done: true}
	defer func() { t.controlBytes = d.controlBytes }()
	if d.groups.count == 0 {
		return
	}
	pageSize := f.sampler.pageSize
	pages := (current.sizeBytes + pageSize - 1) / pageSize
	d.mask = make([]uint64, (pages+63)/64)
	for g := int64(0); g < d.groups.groups; g++ {
		if !d.groups.has(g) {
			continue
		}
		from, to := g*HoldoutGroupBytes, min((g+1)*HoldoutGroupBytes, current.sizeBytes)
		d.controlBytes += to - from
		for page := from / pageSize; page < (to+pageSize-1)/pageSize; page++ {
			d.mask[page/64] |= 1 << (page % 64)
		}
	}
}

// managedResidentPages counts the resident pages outside the control in [fromPage, toPage).
func (t *trackedFile) managedResidentPages(fromPage, toPage int64) int64 {
	if t.draw.mask == nil {
		return t.residency.count(fromPage, toPage)
	}
	n := int64(0)
	for p := fromPage; p < toPage && p/64 < int64(len(t.residency.bits)); {
		if p%64 == 0 && p+64 <= toPage {
			word := t.residency.bits[p/64]
			if p/64 < int64(len(t.draw.mask)) {
				word &^= t.draw.mask[p/64]
			}
			n += int64(bits.OnesCount64(word))
			p += 64
			continue
		}
		if t.residency.resident(p) && !t.controlPage(p) {
			n++
		}
		p++
	}
	return n
}

func (t *trackedFile) controlPage(page int64) bool {
	return t.draw.mask != nil && page/64 < int64(len(t.draw.mask)) && t.draw.mask[page/64]&(1<<(page%64)) != 0
}

// managedRuns are the byte ranges of [offset, offset+length) outside the control groups.
func (t *trackedFile) managedRuns(offset, length int64) [][2]int64 {
	return t.draw.groups.managedRuns(offset, length)
}

// clearManaged forgets the residency of the managed pages in [fromPage, toPage) (after the cache
// dropped them); the control pages' bits stay as measured.
func (t *trackedFile) clearManaged(fromPage, toPage int64) {
	for p := fromPage; p < toPage && p/64 < int64(len(t.residency.bits)); p++ {
		if !t.controlPage(p) {
			t.residency.bits[p/64] &^= 1 << (p % 64)
		}
	}
}

// dropManaged evicts (DONTNEED) the resident managed pages of [fromPage, toPage), in runs of
// contiguous resident pages (pageSize each), the file opened once: a scanner's earlier pages
// were dropped already, so the call costs what is resident now, not the file's length in runs
// around the control groups. Without a control it is one call over the whole range, as the
// kernel skips what is not resident.
func (t *trackedFile) dropManaged(path string, fromPage, toPage, pageSize int64) error {
	if t.draw.mask == nil {
		return advise(path, fromPage*pageSize, (toPage-fromPage)*pageSize, fadviseDontNeed)
	}
	var runs [][2]int64
	for p := fromPage; p < toPage && p/64 < int64(len(t.residency.bits)); p++ {
		if p%64 == 0 && t.residency.bits[p/64] == 0 {
			p += 63 // a word with nothing resident
			continue
		}
		if !t.residency.resident(p) || t.controlPage(p) {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1][0]+runs[n-1][1] == p*pageSize {
			runs[n-1][1] += pageSize
		} else {
			runs = append(runs, [2]int64{p * pageSize, pageSize})
		}
	}
	return adviseRuns(path, runs, fadviseDontNeed)
}
