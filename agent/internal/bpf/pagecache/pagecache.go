// Package pagecache loads the page-cache program: counts, in pages, of reads served through
// the page cache, faults on file mappings, pages added to the cache and pages dirtied, from the
// filemap and writeback tracepoints, system-wide and per file (device and inode, in a bounded
// LRU map); accesses and misses follow.
package pagecache

// Counts are cumulative since Load and summed over CPUs, in pages.
type Counts struct {
	Read    uint64 // pages requested by read() and friends (filemap:mm_filemap_get_pages)
	Faulted uint64 // page faults on file mappings (filemap:mm_filemap_fault)
	Added   uint64 // pages that entered the cache (filemap:mm_filemap_add_to_page_cache)
	Dirtied uint64 // pages that became dirty (writeback:writeback_dirty_folio)
}

// Sub returns c minus an earlier reading.
func (c Counts) Sub(earlier Counts) Counts {
	return Counts{
		Read:    c.Read - earlier.Read,
		Faulted: c.Faulted - earlier.Faulted,
		Added:   c.Added - earlier.Added,
		Dirtied: c.Dirtied - earlier.Dirtied,
	}
}

// AccessesAndMisses derives, from a delta,
//
//	accesses = read + faulted
//	misses   = added - dirtied, floored at zero and at most accesses
//
// Subtracting dirtied pages is cachestat's correction: a page added to the cache to be written
// was not a read miss. Overwriting pages already cached also dirties them, so under heavy
// writes misses are underestimated, never overestimated.
func (c Counts) AccessesAndMisses() (accesses, misses uint64) {
	accesses = c.Read + c.Faulted
	if c.Added > c.Dirtied {
		misses = c.Added - c.Dirtied
	}
	return accesses, min(misses, accesses)
}
