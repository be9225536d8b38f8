package mrc

// The curves a Set keeps (cache_mrc.curve).
const (
	CurvePageCache = "page_cache" // every page-cache access of the host
	CurveReadCache = "read_cache" // the page-cache accesses to one read-cache scope's files
	CurveBlock     = "block"      // one disk's block I/O, below the page cache
)

// MaxCurves bounds a Set: the page-cache curve plus the first read-cache scopes and disks seen,
// 8 × 0.92 MiB at most. The agent's RSS goal (docs/benchmarks.md) has room for that and not
// for a curve per disk of a large array; the curves beyond it are not built (Dropped counts them).
const MaxCurves = 8

// CurveID names one curve.
type CurveID struct {
	Curve string // CurvePageCache, CurveReadCache or CurveBlock
	Scope string // the read-cache scope, the disk; "" for the page cache
}

// Set routes sampled accesses to the curves they belong to. Not safe for concurrent use.
type Set struct {
	pageBytes uint64
	rate      float64
	maxKeys   int
	curves    map[CurveID]*Estimator
	dropped   map[CurveID]bool
}

// NewSet makes a Set whose curves start at rate and hold at most maxKeys keys each.
func NewSet(pageBytes uint64, rate float64, maxKeys int) (*Set, error) {
	s := &Set{pageBytes: pageBytes, rate: rate, maxKeys: maxKeys, curves: map[CurveID]*Estimator{}, dropped: map[CurveID]bool{}}
	if _, err := s.curve(CurveID{Curve: CurvePageCache}); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Set) curve(id CurveID) (*Estimator, error) {
	if e := s.curves[id]; e != nil || s.dropped[id] {
		return e, nil
	}
	if len(s.curves) >= MaxCurves {
		s.dropped[id] = true
		return nil, nil
	}
	settings := Settings{KeyBytes: s.pageBytes, MaxKeys: s.maxKeys, Rate: s.rate}
	if id.Curve == CurveBlock {
		settings.KeyBytes = BlockBytes
	}
	if err := settings.validate(); err != nil {
		return nil, err
	}
	// The kernel already drops what its stream's other curves no longer sample: a new curve
	// starts at that rate, or its counts would be scaled for accesses it never saw.
	page, block := s.Thresholds()
	threshold := page
	if id.Curve == CurveBlock {
		threshold = block
	}
	e := newAt(settings, threshold)
	s.curves[id] = e
	return e, nil
}

// Retain drops the curves keep rejects (scopes gone from the policy, disks gone from the
// host), freeing their room; the page-cache curve always stays.
func (s *Set) Retain(keep func(CurveID) bool) {
	for id := range s.curves {
		if id.Curve != CurvePageCache && !keep(id) {
			delete(s.curves, id)
		}
	}
	clear(s.dropped)
}

// Page records a sampled page-cache access; scope is the read-cache scope of its file, "" for
// none.
func (s *Set) Page(hash uint64, scope string) {
	s.curves[CurveID{Curve: CurvePageCache}].Access(hash)
	if scope != "" {
		if e, _ := s.curve(CurveID{Curve: CurveReadCache, Scope: scope}); e != nil {
			e.Access(hash)
		}
	}
}

// Block records a sampled block access on disk.
func (s *Set) Block(hash uint64, disk string) {
	if e, _ := s.curve(CurveID{Curve: CurveBlock, Scope: disk}); e != nil {
		e.Access(hash)
	}
}

// Thresholds are the hash thresholds the kernel may drop accesses at: per stream, the largest
// of its curves', since each curve filters again at its own.
func (s *Set) Thresholds() (page, block uint64) {
	page, block = thresholdFor(s.rate), thresholdFor(s.rate) // before any curve of the stream exists
	var pageSeen, blockSeen bool
	for id, e := range s.curves {
		if id.Curve == CurveBlock {
			block, blockSeen = maxOrFirst(block, e.Threshold(), blockSeen), true
		} else {
			page, pageSeen = maxOrFirst(page, e.Threshold(), pageSeen), true
		}
	}
	return page, block
}

// Window returns the window's curves and starts the next. pageAccesses and blockAccesses are
// the kernel's counts of every access in the window (0 when unknown): the page-cache curve
// and, with one disk, the block curve are corrected with them (SHARDS_adj); scope curves and
// the curves of hosts with several disks are not, since the kernel does not count per scope or
// disk.
func (s *Set) Window(pageAccesses, blockAccesses uint64) map[CurveID]Curve {
	out := map[CurveID]Curve{}
	disks := 0
	for id := range s.curves {
		if id.Curve == CurveBlock {
			disks++
		}
	}
	for id, e := range s.curves {
		total := uint64(0)
		switch {
		case id.Curve == CurvePageCache:
			total = pageAccesses
		case id.Curve == CurveBlock && disks == 1:
			total = blockAccesses
		}
		if c, ok := e.Curve(total); ok {
			out[id] = c
		}
		e.ResetWindow()
	}
	return out
}

// Dropped is the number of curves not built because the Set was full.
func (s *Set) Dropped() int { return len(s.dropped) }

func maxOrFirst(current, v uint64, seen bool) uint64 {
	if !seen {
		return v
	}
	return max(current, v)
}
