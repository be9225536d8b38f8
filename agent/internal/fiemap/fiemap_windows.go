package fiemap

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

const (
	fsctlGetRetrievalPointers = 0x00090073 // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 28, METHOD_NEITHER, FILE_ANY_ACCESS)
	retrievalBatchExtents     = 128
)

var procGetDiskFreeSpace = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetDiskFreeSpaceW")

// CountFD returns the fragments of the open file (fd is its Windows handle, as os.File.Fd gives
// it; named name in errors) from FSCTL_GET_RETRIEVAL_POINTERS, counted by the same rule as on
// Linux (retrieval.go). A handle opened with FILE_READ_ATTRIBUTES alone is enough, so files a
// database holds open without sharing can be mapped. A file system without retrieval pointers
// (network shares, some third-party file systems) gives an error wrapping ErrUnsupported.
func CountFD(fd int, name string) (int, error) {
	return countRetrieval(windows.Handle(fd), name, math.MaxInt64)
}

// CountFDSynced is CountFD after FlushFileBuffers, for a caller that just rewrote the file
// itself and must see where its data landed (the flush needs a handle with write access; with
// a read-only one it fails and the count is of what the file system has placed so far).
func CountFDSynced(fd int, name string) (int, error) {
	_ = windows.FlushFileBuffers(windows.Handle(fd))
	return CountFD(fd, name)
}

// CountFDSyncedTo is CountFDSynced over the first end bytes of the file: clusters reserved past
// the end (FileAllocationInfo) are not counted. The cluster size comes from the file's volume.
func CountFDSyncedTo(fd int, name string, end int64) (int, error) {
	if end <= 0 {
		return 0, nil
	}
	cluster, err := clusterBytes(name)
	if err != nil {
		return 0, fmt.Errorf("%s: cluster size: %w", name, err)
	}
	_ = windows.FlushFileBuffers(windows.Handle(fd))
	return countRetrieval(windows.Handle(fd), name, (end+cluster-1)/cluster)
}

func countRetrieval(h windows.Handle, name string, endVCN int64) (int, error) {
	// []uint64 keeps the reply 8-byte aligned, as the LARGE_INTEGERs in it want.
	reply := make([]uint64, (retrievalHeaderBytes+retrievalBatchExtents*retrievalExtentBytes)/8)
	replyBytes := unsafe.Slice((*byte)(unsafe.Pointer(&reply[0])), len(reply)*8)
	var counter Counter
	var vcn int64 // STARTING_VCN_INPUT_BUFFER
	for {
		var returned uint32
		err := windows.DeviceIoControl(h, fsctlGetRetrievalPointers, (*byte)(unsafe.Pointer(&vcn)), 8,
			&replyBytes[0], uint32(len(replyBytes)), &returned, nil)
		switch {
		case errors.Is(err, windows.ERROR_HANDLE_EOF):
			return counter.Extents(), nil // no clusters: empty, or small enough to live in the MFT record
		case errors.Is(err, windows.ERROR_INVALID_FUNCTION), errors.Is(err, windows.ERROR_NOT_SUPPORTED),
			errors.Is(err, windows.ERROR_INVALID_PARAMETER):
			return 0, fmt.Errorf("%s: %w (%v)", name, ErrUnsupported, err)
		case err != nil && !errors.Is(err, windows.ERROR_MORE_DATA):
			return 0, fmt.Errorf("FSCTL_GET_RETRIEVAL_POINTERS on %s: %w", name, err)
		}
		next, parseErr := consumeRetrievalPointers(&counter, replyBytes[:returned], endVCN)
		if parseErr != nil {
			return 0, fmt.Errorf("FSCTL_GET_RETRIEVAL_POINTERS on %s: %w", name, parseErr)
		}
		if err == nil || next >= endVCN {
			return counter.Extents(), nil
		}
		vcn = next
	}
}

// clusterBytes is the allocation unit of the volume path lies on (mounted folders included).
func clusterBytes(path string) (int64, error) {
	p, err := windows.UTF16PtrFromString(filepath.Clean(path))
	if err != nil {
		return 0, err
	}
	root := make([]uint16, windows.MAX_PATH+1)
	if err := windows.GetVolumePathName(p, &root[0], uint32(len(root))); err != nil {
		return 0, fmt.Errorf("GetVolumePathName: %w", err)
	}
	var sectorsPerCluster, bytesPerSector, freeClusters, totalClusters uint32
	if r, _, err := procGetDiskFreeSpace.Call(uintptr(unsafe.Pointer(&root[0])), uintptr(unsafe.Pointer(&sectorsPerCluster)),
		uintptr(unsafe.Pointer(&bytesPerSector)), uintptr(unsafe.Pointer(&freeClusters)), uintptr(unsafe.Pointer(&totalClusters))); r == 0 {
		return 0, fmt.Errorf("GetDiskFreeSpace: %w", err)
	}
	if sectorsPerCluster == 0 || bytesPerSector == 0 {
		return 0, fmt.Errorf("volume reports %d sectors of %d bytes per cluster", sectorsPerCluster, bytesPerSector)
	}
	return int64(sectorsPerCluster) * int64(bytesPerSector), nil
}
