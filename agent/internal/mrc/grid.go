package mrc

import (
	"math"
	"sort"
)

// The sizes a curve is evaluated at, in keys (pages or blocks): 16 points per doubling from one
// key to 2^40 keys, rounded to whole keys and deduplicated. A log grid keeps a curve from a 4 KiB
// page to petabytes under the 1024 points cache_mrc allows (about 580 here) and gives every size
// range the same relative resolution, which is what the knee of a curve needs.
const stepsPerDoubling = 16

var grid = buildGrid(40)

func buildGrid(doublings int) []uint64 {
	var g []uint64
	for i := 0; i <= doublings*stepsPerDoubling; i++ {
		v := uint64(math.Round(math.Exp2(float64(i) / stepsPerDoubling)))
		if len(g) == 0 || v > g[len(g)-1] {
			g = append(g, v)
		}
	}
	return g
}

// bucketOf is the first grid point at or above distance (in keys): a reuse at that distance hits
// in every cache of that many keys or more. Distances past the grid land in the last bucket.
func bucketOf(distance float64) int {
	i := sort.Search(len(grid), func(i int) bool { return float64(grid[i]) >= distance })
	return min(i, len(grid)-1)
}
