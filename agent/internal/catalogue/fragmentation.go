package catalogue

// Attribute keys of the fragmentation metrics.
const (
	AttrScanRoot = "spindle.scan.root"
	AttrFilePath = "file.path"
	AttrFileSize = "file.size" // bytes, int
)
