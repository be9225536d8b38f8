package readcache

import "math/bits"

// residency is a file's page-cache residency at one sample: one bit per page. key names the
// file as stat(2) does where the platform says (keyKnown), for the control group's draw.
type residency struct {
	sizeBytes int64
	bits      []uint64
	key       FileKey
	keyKnown  bool
}

func (r residency) resident(page int64) bool {
	return page < int64(len(r.bits))*64 && r.bits[page/64]&(1<<(page%64)) != 0
}

// count is the number of resident pages in [fromPage, toPage).
func (r residency) count(fromPage, toPage int64) int64 {
	n := int64(0)
	for p := fromPage; p < toPage && p/64 < int64(len(r.bits)); p++ {
		if r.bits[p/64]&(1<<(p%64)) != 0 {
			n++
		}
	}
	return n
}

// pages is how many pages the bits cover (a whole last word).
func (r residency) pages() int64 { return int64(len(r.bits)) * 64 }

func (r residency) total() int64 {
	n := 0
	for _, word := range r.bits {
		n += bits.OnesCount64(word)
	}
	return int64(n)
}

// change is what happened to a file between two samples.
type change struct {
	retainedPages int64
	pagedInPages  int64
	newestPage    int64 // highest page index paged in, -1 when none
	oldestPage    int64 // lowest page index paged in, -1 when none
}

// spanPages is how many pages lie from the lowest to the highest page paged in (0 when none):
// a sequential reader's page-ins fill most of their span, a random reader's are scattered.
func (c change) spanPages() int64 {
	if c.newestPage < 0 {
		return 0
	}
	return c.newestPage - c.oldestPage + 1
}

func compare(previous, current residency) change {
	c := change{newestPage: -1, oldestPage: -1}
	for i, word := range current.bits {
		var before uint64
		if i < len(previous.bits) {
			before = previous.bits[i]
		}
		c.retainedPages += int64(bits.OnesCount64(word & before))
		if added := word &^ before; added != 0 {
			c.pagedInPages += int64(bits.OnesCount64(added))
			if c.oldestPage < 0 {
				c.oldestPage = int64(i)*64 + int64(bits.TrailingZeros64(added))
			}
			c.newestPage = int64(i)*64 + int64(63-bits.LeadingZeros64(added))
		}
	}
	return c
}

// missingRuns lists the non-resident byte ranges of a file, in order.
func missingRuns(r residency, pageSize int64) [][2]int64 {
	var runs [][2]int64
	pages := (r.sizeBytes + pageSize - 1) / pageSize
	for p := int64(0); p < pages; {
		if r.resident(p) {
			p++
			continue
		}
		start := p
		for p < pages && !r.resident(p) {
			p++
		}
		runs = append(runs, [2]int64{start * pageSize, min(p*pageSize, r.sizeBytes) - start*pageSize})
	}
	return runs
}
