package pagecache

// HoldoutDraw is the read cache's control group as the kernel draws it (spindle_holdout.h):
// a page group is in the control when mix(mix(mix(Salt ^ dev) ^ ino) ^ group) >> 32 is below
// Threshold; groups are 1 << GroupShift pages.
type HoldoutDraw struct {
	Salt       uint64
	Threshold  uint32
	GroupShift uint32
}

// HoldoutCounts are one managed file's counts since the agent listed it, in pages. Managed and
// Control hold the events of every thread but the read cache's own, split by group.
type HoldoutCounts struct {
	Managed, Control Counts
	// OwnAdded: pages the read cache's thread brought into the page cache.
	OwnAdded uint64
	// OwnHits: first accesses by other threads to those pages while they stayed resident.
	OwnHits uint64
}

// Sub returns c minus an earlier reading.
func (c HoldoutCounts) Sub(earlier HoldoutCounts) HoldoutCounts {
	return HoldoutCounts{Managed: c.Managed.Sub(earlier.Managed), Control: c.Control.Sub(earlier.Control),
		OwnAdded: c.OwnAdded - earlier.OwnAdded, OwnHits: c.OwnHits - earlier.OwnHits}
}

// Covers says whether c can be a later reading of the same entry than earlier (every counter at
// least as high); a file listed again starts from zero.
func (c HoldoutCounts) Covers(earlier HoldoutCounts) bool {
	covers := func(a, b Counts) bool {
		return a.Read >= b.Read && a.Faulted >= b.Faulted && a.Added >= b.Added && a.Dirtied >= b.Dirtied
	}
	return covers(c.Managed, earlier.Managed) && covers(c.Control, earlier.Control) &&
		c.OwnAdded >= earlier.OwnAdded && c.OwnHits >= earlier.OwnHits
}

// HoldoutBuckets is how many hash buckets the page groups of the managed files are counted in
// (spindle_holdout.h HOLDOUT_BUCKETS; readcache.HoldoutBuckets, which a test holds equal).
const HoldoutBuckets = 16

// HoldoutBucket is one bucket's counts of both groups, cumulative since Load, in pages, over
// every thread but the read cache's own.
type HoldoutBucket struct {
	Managed, Control Counts
}

// Sub returns b minus an earlier reading.
func (b HoldoutBucket) Sub(earlier HoldoutBucket) HoldoutBucket {
	return HoldoutBucket{Managed: b.Managed.Sub(earlier.Managed), Control: b.Control.Sub(earlier.Control)}
}

// MaxHoldoutFiles is how many files the control group can be counted for (holdout_files).
const MaxHoldoutFiles = 131072

// kernelDev is the kernel's s_dev encoding of a stat(2) device number.
func kernelDev(dev uint64) uint32 {
	major := uint32((dev>>8)&0xfff) | uint32((dev>>32)&^0xfff)
	minor := uint32(dev&0xff) | uint32((dev>>12)&^0xff)
	return major<<20 | minor
}
