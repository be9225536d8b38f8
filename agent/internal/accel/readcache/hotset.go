package readcache

import (
	"math"
	"sort"
	"time"
)

// fileHeat is what the cache learns about one managed file from its samples.
type fileHeat struct {
	sizeBytes int64
	// controlBytes are the file's bytes in the control group: never the cache's to hold.
	controlBytes int64
	pinned       bool // a policy pin covers it
	heat         float64
	// streakBytes are the bytes paged in over a run of samples that paged something in
	// sequentially, with gaps of fewer than scanQuietSamples quiet samples: a sequential reader
	// makes it grow by its read rate, and a throttled one (a backup, a paced report) pausing
	// between chunks stays a scanner. A sample whose page-ins are scattered (a database's random
	// reads of a table that did not fit the budget) ends the streak: dropping behind such a
	// reader would evict the pages it is about to read again.
	streakBytes  int64
	quietSamples int
	scanning     bool
}

// heldBytes is what holding the whole file costs the budget: all but its control groups.
func (h *fileHeat) heldBytes() int64 { return max(0, h.sizeBytes-h.controlBytes) }

// scanQuietSamples is how many samples in a row must page nothing in to end a streak.
const scanQuietSamples = 3

// observation is one sample of one file.
type observation struct {
	residentPages int64
	retainedPages int64 // resident now and at the previous sample
	pagedInPages  int64 // resident now, not at the previous sample, not loaded by the cache
	// pagedInSpanPages: from the lowest to the highest page paged in (change.spanPages).
	pagedInSpanPages int64
	accessedPages    int64 // from the AccessSource, 0 without one
	pageSize         int64
	elapsedSeconds   float64
}

// sequentialDensity: a sample's page-ins are sequential when they fill at least this share of
// their span. A scanner's fill it (about 1); random reads of a large file fill a tiny share.
const sequentialDensity = 0.5

// sequential says whether the sample's page-ins look like a sequential reader's.
func (o observation) sequential() bool {
	return float64(o.pagedInPages) >= sequentialDensity*float64(o.pagedInSpanPages)
}

// heatModel turns observations into heat: residency-weighted recency.
type heatModel struct {
	halfLife      time.Duration
	refaultWeight float64
}

// update folds one observation into h and says whether the file is a sequential scanner now.
// inHotSet files are never scanners: a backup reading the hot set keeps it resident.
func (m heatModel) update(h *fileHeat, o observation, inHotSet bool, scanThresholdBytes int64) {
	decay := math.Exp2(-o.elapsedSeconds / m.halfLife.Seconds())
	switch {
	case o.pagedInPages > 0 && !o.sequential():
		h.streakBytes, h.quietSamples = 0, 0
	case o.pagedInPages > 0:
		h.streakBytes += o.pagedInPages * o.pageSize
		h.quietSamples = 0
	default:
		if h.quietSamples++; h.quietSamples >= scanQuietSamples {
			h.streakBytes = 0
		}
	}
	h.scanning = !inHotSet && !h.pinned && h.streakBytes > scanThresholdBytes
	if h.scanning {
		// A scanner's pages are read once; its residency says nothing about reuse.
		h.heat = 0
		return
	}
	h.heat = h.heat*decay + float64(o.retainedPages)*o.elapsedSeconds +
		m.refaultWeight*float64(o.pagedInPages) + float64(o.accessedPages)
}

// hotSetMember is one file chosen for the hot set.
type hotSetMember struct {
	path      string
	sizeBytes int64 // what it holds of the budget: the file less its control groups
	pinned    bool
}

// rankHotSet picks the hot set within budgetBytes: pinned files first in pinOrder, then the
// rest by heat per byte (the most reuse for the memory), whole files only; a file that does not
// fit is skipped and smaller ones may still fit. Files with no heat are never chosen.
func rankHotSet(files map[string]*fileHeat, pinOrder []string, budgetBytes int64) []hotSetMember {
	var chosen []hotSetMember
	used := int64(0)
	taken := map[string]bool{}
	for _, path := range pinOrder {
		h, ok := files[path]
		if !ok || taken[path] || used+h.heldBytes() > budgetBytes {
			continue
		}
		taken[path] = true
		used += h.heldBytes()
		chosen = append(chosen, hotSetMember{path: path, sizeBytes: h.heldBytes(), pinned: true})
	}
	type candidate struct {
		path    string
		density float64
		size    int64
	}
	var candidates []candidate
	for path, h := range files {
		if taken[path] || h.scanning || h.heat <= 0 || h.heldBytes() <= 0 {
			continue
		}
		candidates = append(candidates, candidate{path, h.heat / float64(h.heldBytes()), h.heldBytes()})
	}
	sort.Slice(candidates, func(i, j int) bool {
		if candidates[i].density != candidates[j].density {
			return candidates[i].density > candidates[j].density
		}
		return candidates[i].path < candidates[j].path
	})
	for _, c := range candidates {
		if used+c.size > budgetBytes {
			continue
		}
		used += c.size
		chosen = append(chosen, hotSetMember{path: c.path, sizeBytes: c.size})
	}
	return chosen
}

// coldestFirst orders paths by ascending heat per byte: what a backoff gives back first.
func coldestFirst(files map[string]*fileHeat, paths []string) []string {
	ordered := append([]string(nil), paths...)
	density := func(p string) float64 {
		h := files[p]
		if h == nil || h.heldBytes() <= 0 {
			return 0
		}
		return h.heat / float64(h.heldBytes())
	}
	sort.SliceStable(ordered, func(i, j int) bool { return density(ordered[i]) < density(ordered[j]) })
	return ordered
}
