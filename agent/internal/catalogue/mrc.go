package catalogue

// Attributes of the miss-ratio curves (docs/metrics.md, "Miss-ratio curves").
const (
	AttrMRCCurve     = "spindle.mrc.curve"      // page_cache, read_cache or block
	AttrMRCScope     = "spindle.mrc.scope"      // the read-cache scope or the disk; "" for page_cache
	AttrMRCSizeBytes = "spindle.mrc.size_bytes" // int: the cache size a hit ratio is for
)
