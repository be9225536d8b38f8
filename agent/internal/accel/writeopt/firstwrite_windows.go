package writeopt

import (
	"errors"
	"fmt"
)

// attachGate has nothing to attach on Windows: ReadDirectoryChangesW reports a new file after
// its first write, and holding opens needs a file-system minifilter driver.
func (f *Feature) attachGate(*watcher) error {
	//lint:ignore ST1005 Windows is a proper noun
	return errors.New("Windows reports a new file after its first write (ReadDirectoryChangesW); holding opens " +
		"would need a file-system filter driver")
}

// ProbeFirstWrite says why preallocation comes after a new file's first write here.
func ProbeFirstWrite(string) error {
	return fmt.Errorf("%w: %v", ErrUnsupported, (&Feature{}).attachGate(nil))
}

// ProbeExtentSizeHint returns ErrUnsupported: extent size hints are XFS's, on Linux.
func ProbeExtentSizeHint(string) ([]string, error) {
	return nil, fmt.Errorf("%w: extent size hints are XFS's (Linux); NTFS and ReFS get their windows from "+
		"SetFileInformationByHandle alone", ErrUnsupported)
}
