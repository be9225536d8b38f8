package collector

import (
	"cmp"
	"slices"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// DefaultPageCacheTopFiles is how many files page_cache reports per interval when the config
// says nothing (collectors.page_cache.top_files).
const DefaultPageCacheTopFiles = 10

// fileUse is one file's page-cache use over one interval.
type fileUse struct {
	id       pagecache.FileID
	path     string // the file's path, or its mount point and inode with what was tried (unnamedFile)
	accesses uint64
	misses   uint64
}

// topFiles turns the program's cumulative per-file counts into each interval's busiest files.
// Memory is bounded by the program's map (pagecache.MaxFiles entries in prev) and by paths'
// own bounds.
type topFiles struct {
	n     int
	prev  pagecache.Files
	paths *filePaths
}

func newTopFiles(n int, procPath string) *topFiles {
	if n <= 0 {
		n = DefaultPageCacheTopFiles
	}
	return &topFiles{n: n, paths: newFilePaths(procPath)}
}

// next returns, from the counts of this tick, the n files with the most accesses since the
// previous tick (none with zero accesses), most accesses first, with their paths.
func (t *topFiles) next(cur pagecache.Files) []fileUse {
	uses := make([]fileUse, 0, t.n+1)
	j := 0 // both readings are sorted by file: walk prev alongside
	for _, f := range cur {
		id, c := f.ID, f.Counts
		for j < len(t.prev) && pagecache.CompareFileIDs(t.prev[j].ID, id) < 0 {
			j++
		}
		delta := c
		if j < len(t.prev) && t.prev[j].ID == id && covers(c, t.prev[j].Counts) {
			delta = c.Sub(t.prev[j].Counts)
		} // else: new, or evicted and counted afresh since: all of c is this interval's
		accesses, misses := delta.AccessesAndMisses()
		if accesses == 0 {
			continue
		}
		uses = append(uses, fileUse{id: id, accesses: accesses, misses: misses})
		if len(uses) > 2*t.n { // keep the candidate list short: trim to the best n now and then
			uses = bestFiles(uses, t.n)
		}
	}
	t.prev = cur
	uses = bestFiles(uses, t.n)
	ids := make([]pagecache.FileID, len(uses))
	for i, u := range uses {
		ids[i] = u.id
	}
	names := t.paths.resolve(ids)
	taken := map[string]bool{}
	for i := range uses {
		uses[i].path = names[uses[i].id]
		if taken[uses[i].path] { // two inodes, one name (a file replaced while the old one is open)
			uses[i].path = t.paths.unnamed(uses[i].id, "its name "+uses[i].path+" belongs to a newer file now")
		}
		taken[uses[i].path] = true
	}
	return uses
}

// covers reports whether every count of c is at least the earlier reading's: otherwise the
// file was evicted from the map and came back, and c counts only since then.
func covers(c, earlier pagecache.Counts) bool {
	return c.Read >= earlier.Read && c.Faulted >= earlier.Faulted && c.Added >= earlier.Added && c.Dirtied >= earlier.Dirtied
}

// bestFiles sorts by accesses (then misses, then identity, so ties are stable across ticks)
// and keeps the first n.
func bestFiles(uses []fileUse, n int) []fileUse {
	slices.SortFunc(uses, func(a, b fileUse) int {
		return cmp.Or(cmp.Compare(b.accesses, a.accesses), cmp.Compare(b.misses, a.misses),
			cmp.Compare(a.id.Dev, b.id.Dev), cmp.Compare(a.id.Ino, b.id.Ino))
	})
	return uses[:min(n, len(uses))]
}
