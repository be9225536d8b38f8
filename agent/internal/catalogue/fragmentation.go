package catalogue

// Attribute keys of the fragmentation metrics.
const (
	AttrScanRoot = "spindle.scan.root"
	AttrFilePath = "file.path"
	AttrFileSize = "file.size" // bytes, int
)

// Fragmentation from the FIEMAP scanner: each describes the last complete scan of one root.
var (
	FragmentationFiles = IntGauge{Metric{"spindle.fragmentation.files", "{file}",
		"Regular files mapped by the last scan of the root."}}
	FragmentationFragmentedFiles = IntGauge{Metric{"spindle.fragmentation.fragmented_files", "{file}",
		"Files with more than one extent."}}
	FragmentationExtents = IntGauge{Metric{"spindle.fragmentation.extents", "{extent}",
		"Extents of all scanned files, counted as filefrag counts them."}}
	FragmentationExcessExtents = IntGauge{Metric{"spindle.fragmentation.excess_extents", "{extent}",
		"Extents beyond one per non-empty file: the fragments a perfect layout would not have."}}
	FragmentationUnsupportedFiles = IntGauge{Metric{"spindle.fragmentation.unsupported_files", "{file}",
		"Regular files skipped because their file system cannot map extents (no FIEMAP)."}}
	FragmentationScanDuration = FloatGauge{Metric{"spindle.fragmentation.scan_duration", "s",
		"How long the last scan of the root took (paced, at idle I/O priority)."}}
	FragmentationFileExtents = IntGauge{Metric{"spindle.fragmentation.file.extents", "{extent}",
		"Extents of one of the most fragmented files of the last scan."}}
)
