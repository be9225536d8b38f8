package writeopt

import "sort"

// Defaults bounding the comparison group's bookkeeping.
const (
	// defaultComparisonFiles is how many growing files are tracked; beyond it the file that grew
	// least recently is forgotten (and starts over from a fresh baseline if it grows again).
	defaultComparisonFiles = 1000
	// defaultComparisonChecks is how many files one measurement pass counts with FIEMAP; the
	// rest stay pending for the next pass.
	defaultComparisonChecks = 200
)

// comparison measures the growth of files in the watched directories, those a rule manages and
// those no rule matches (the comparison group), so the fragments a managed file gained per
// byte can be set against the rate of files left alone. It is pure bookkeeping: the feature
// feeds it inotify sightings and the (size, extents) it measured.
type comparison struct {
	maxFiles int
	files    map[string]*trackedFile
	seq      uint64 // orders sightings and growths (for eviction and fair measurement)

	managed, unmanaged growthTotals
}

type growthTotals struct{ grownBytes, extentsAdded int64 }

type trackedFile struct {
	managed bool
	known   bool // size and extents hold a baseline
	size    int64
	extents int64
	pending uint64 // sequence of the sighting not yet measured; 0 when measured
	// measuring: handed out by due and not yet measured; again: seen meanwhile, so what was
	// measured may predate the latest write and the file stays pending.
	measuring, again bool
	lastGrow         uint64 // sequence of the last growth (or first sighting)
}

func newComparison(maxFiles int) *comparison {
	return &comparison{maxFiles: maxFiles, files: map[string]*trackedFile{}}
}

// saw notes an inotify event for path. created means the file was just created there (IN_CREATE),
// so it starts empty and all its growth counts; any other first sighting is baselined at its
// first measurement (its growth before then is unknown).
func (c *comparison) saw(path string, managed, created bool) {
	c.seq++
	tf := c.files[path]
	if tf == nil {
		if len(c.files) >= c.maxFiles {
			c.evictOldest()
		}
		tf = &trackedFile{lastGrow: c.seq}
		if created {
			tf.known = true
		}
		c.files[path] = tf
	}
	tf.managed = managed // a policy change can move a file between the groups
	if tf.measuring {
		tf.again = true
	} else if tf.pending == 0 {
		tf.pending = c.seq
	}
}

func (c *comparison) evictOldest() {
	oldestPath, oldest := "", uint64(0)
	for path, tf := range c.files {
		if oldestPath == "" || tf.lastGrow < oldest {
			oldestPath, oldest = path, tf.lastGrow
		}
	}
	delete(c.files, oldestPath)
}

// due returns at most n files waiting to be measured, longest waiting first.
func (c *comparison) due(n int) []string {
	var paths []string
	for path, tf := range c.files {
		if tf.pending != 0 && !tf.measuring {
			paths = append(paths, path)
		}
	}
	sort.Slice(paths, func(i, j int) bool { return c.files[paths[i]].pending < c.files[paths[j]].pending })
	paths = paths[:min(n, len(paths))]
	for _, path := range paths {
		c.files[path].measuring = true
	}
	return paths
}

// measured records a file's size and extents (up to EOF). A growth adds the bytes grown and the
// extents added (never negative: defragmentation in between only lowers the count) to the file's
// group; a shrink or truncate starts a fresh baseline and adds nothing.
func (c *comparison) measured(path string, size, extents int64) {
	tf := c.files[path]
	if tf == nil {
		return // evicted while it was measured
	}
	tf.measuring, tf.pending = false, 0
	if tf.again {
		c.seq++
		tf.again, tf.pending = false, c.seq
	}
	if tf.known && size > tf.size {
		c.seq++
		tf.lastGrow = c.seq
		totals := &c.unmanaged
		if tf.managed {
			totals = &c.managed
		}
		totals.grownBytes += size - tf.size
		totals.extentsAdded += max(0, extents-tf.extents)
	}
	tf.known, tf.size, tf.extents = true, size, extents
}

// gone drops a file that was deleted (or can no longer be opened).
func (c *comparison) gone(path string) { delete(c.files, path) }

// forget drops every tracked file; the totals stay (they are cumulative).
func (c *comparison) forget() { c.files = map[string]*trackedFile{} }
