package bench

import (
	"fmt"
	"sort"

	"github.com/spindle-io/spindle/agent/internal/bench/proofstats"
)

// passReads adds up each pass's classified reads over its steps, in pass order.
func passReads(measures [][]measure) []PassReads {
	byPass := map[int]*PassReads{}
	for _, ms := range measures {
		for _, m := range ms {
			if !m.reads.classified {
				continue
			}
			p := byPass[m.pass]
			if p == nil {
				p = &PassReads{Pass: m.pass + 1, Side: m.side, WarmUp: m.warmUp}
				byPass[m.pass] = p
			}
			p.StorageReads += m.reads.storage
			p.MemoryReads += m.reads.memory
		}
	}
	out := make([]PassReads, 0, len(byPass))
	for _, p := range byPass {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pass < out[j].Pass })
	return out
}

const causedReadsBasis = "share of read I/Os that went to storage in each compared pass (each buffered read " +
	"classified before it was issued by its pages' residency), on against off pass pair by pass pair; " +
	"storage reads saved = read I/Os in the on passes × (share off − share on)"

// causedReads is what the read cache caused: the change in the share of reads that went to
// storage, and the storage reads that change saved over the "on" passes. A run whose reads were
// not classified (pgbench, direct I/O, no buffered reads) says why with placementBasis.
func causedReads(passes []PassReads, classified bool, placementBasis string, complete bool) *CausedReads {
	c := &CausedReads{Status: NotMeasured, Basis: causedReadsBasis}
	switch {
	case !classified:
		c.Reason = placementBasis
		return c
	case !complete:
		c.Reason = incompleteReason
		return c
	}
	var shares []proofstats.Pass
	var sum = map[Side]float64{}
	var n = map[Side]int{}
	for _, p := range passes {
		if p.WarmUp {
			continue
		}
		total := p.StorageReads + p.MemoryReads
		if total == 0 {
			c.Reason = fmt.Sprintf("pass %d issued no buffered reads", p.Pass)
			return c
		}
		share := float64(p.StorageReads) / float64(total)
		shares = append(shares, proofstats.Pass{On: p.Side == On, Value: share})
		sum[p.Side] += share
		n[p.Side]++
		if p.Side == On {
			c.ReadsWith += total
		}
	}
	c.Pairs = len(shares) / 2
	est, err := proofstats.Crossover(shares, singleConfidence, 0)
	if err != nil {
		c.Reason = notMeasured(err, c.Pairs, "storage share").Reason
		return c
	}
	c.Status = status(est)
	points := func(v float64) *float64 { x := 100 * v; return &x }
	saved := func(v float64) *float64 { x := -v * float64(c.ReadsWith); return &x }
	off, on := 100*sum[Off]/float64(n[Off]), 100*sum[On]/float64(n[On])
	c.StorageSharePercentOff, c.StorageSharePercentOn = &off, &on
	c.ShareChangePoints, c.ShareChangeLowPoints, c.ShareChangeHighPoints = points(est.Difference), points(est.Low), points(est.High)
	// a lower share is more reads saved: the interval's ends swap
	c.StorageReadsSaved, c.StorageReadsSavedLow, c.StorageReadsSavedHigh = saved(est.Difference), saved(est.High), saved(est.Low)
	return c
}
