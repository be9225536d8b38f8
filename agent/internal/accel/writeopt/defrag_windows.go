package writeopt

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// Windows' defragmentation interface (winioctl.h): the file system itself moves a file's
// clusters (FSCTL_MOVE_FILE) into free space found in the volume bitmap (FSCTL_GET_VOLUME_BITMAP),
// under its own locks, so readers and writers keep working and content never changes.
const (
	fsctlGetVolumeBitmap = 0x0009006F // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 27, METHOD_NEITHER, FILE_ANY_ACCESS)
	fsctlMoveFile        = 0x00090074 // CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 29, METHOD_BUFFERED, FILE_SPECIAL_ACCESS)
	ioctlDiskPerformance = 0x00070020 // CTL_CODE(IOCTL_DISK_BASE, 8, METHOD_BUFFERED, FILE_ANY_ACCESS)
	bitmapChunkBytes     = 1 << 20    // one bitmap request: 8 Mi clusters (32 GiB at 4 KiB)
)

// volumeOf opens the volume path lies on (\\.\C: or \\?\Volume{…}) for the defragmentation
// requests, which need an administrator.
func volumeOf(path string) (windows.Handle, string, error) {
	p, err := windows.UTF16PtrFromString(filepath.Clean(path))
	if err != nil {
		return 0, "", err
	}
	root := make([]uint16, windows.MAX_PATH+1)
	if err := windows.GetVolumePathName(p, &root[0], uint32(len(root))); err != nil {
		return 0, "", fmt.Errorf("GetVolumePathName %s: %w", path, err)
	}
	name := strings.TrimSuffix(windows.UTF16ToString(root), `\`)
	device := `\\.\` + name
	if strings.HasPrefix(name, `\\?\`) {
		device = name
	}
	d, err := windows.UTF16PtrFromString(device)
	if err != nil {
		return 0, "", err
	}
	h, err := windows.CreateFile(d, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE,
		nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return 0, device, fmt.Errorf("open the volume %s: %w", device, err)
	}
	return h, device, nil
}

// checkDefragSupported fails with ErrUnsupported unless the volume of path answers
// FSCTL_GET_VOLUME_BITMAP (NTFS and ReFS answer it; Wine and most network shares do not).
func checkDefragSupported(path string) error {
	volume, device, err := volumeOf(path)
	if err != nil {
		return fmt.Errorf("defragmentation of %s: %w: %v", path, ErrUnsupported, err)
	}
	defer windows.CloseHandle(volume)
	if _, err := readBitmap(volume, 0, make([]byte, 64)); err != nil {
		return fmt.Errorf("defragmentation of %s: %w: the volume %s refuses FSCTL_GET_VOLUME_BITMAP (%v)", path, ErrUnsupported, device, err)
	}
	return nil
}

// readBitmap reads the bitmap from startLCN into buffer (VOLUME_BITMAP_BUFFER: StartingLcn,
// BitmapSize, then the bits).
func readBitmap(volume windows.Handle, startLCN int64, buffer []byte) (volumeBitmap, error) {
	var returned uint32
	err := windows.DeviceIoControl(volume, fsctlGetVolumeBitmap, (*byte)(unsafe.Pointer(&startLCN)), 8,
		&buffer[0], uint32(len(buffer)), &returned, nil)
	if err != nil && !errors.Is(err, windows.ERROR_MORE_DATA) {
		return volumeBitmap{}, err
	}
	return decodeVolumeBitmap(buffer[:returned])
}

// defragment asks the file system to move the file's clusters into the first free run of the
// volume that holds all of them, in chunks of moveChunkBytes, and counts its fragments again.
// The file system refuses a move into clusters taken meanwhile; the file then stays as it is,
// wherever the moves that succeeded put it (always whole and unchanged).
// The free-space floor does not apply: FSCTL_MOVE_FILE frees each chunk's old clusters as it
// moves it, so at most one chunk (moveChunkBytes) is held twice at a time.
func defragment(path string, moveChunkBytes, _ int64) (defragResult, error) {
	f, _, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return defragResult{}, err
	}
	defer f.Close()
	var result defragResult
	if result.ExtentsBefore, err = countExtents(f); err != nil {
		return result, err
	}
	info, err := standardInfo(windows.Handle(f.Fd()))
	if err != nil || info.AllocationSize == 0 {
		result.ExtentsAfter = result.ExtentsBefore
		return result, err
	}
	volume, device, err := volumeOf(path)
	if err != nil {
		return result, fmt.Errorf("defragment %s: %w", path, err)
	}
	defer windows.CloseHandle(volume)
	cluster, err := clusterBytesOf(path)
	if err != nil {
		return result, err
	}
	clusters := (info.AllocationSize + cluster - 1) / cluster
	target, err := findFreeRun(volume, clusters)
	if err != nil {
		return result, fmt.Errorf("defragment %s: the bitmap of %s: %w", path, device, err)
	}
	if target < 0 {
		result.ExtentsAfter = result.ExtentsBefore
		return result, nil // no free run holds the file: nothing to gain
	}
	chunk := max(1, moveChunkBytes/cluster)
	for vcn := int64(0); vcn < clusters; vcn += chunk {
		move := moveFileData{File: windows.Handle(f.Fd()), StartingVCN: vcn, StartingLCN: target + vcn,
			ClusterCount: uint32(min(chunk, clusters-vcn))}
		var returned uint32
		err := windows.DeviceIoControl(volume, fsctlMoveFile, (*byte)(unsafe.Pointer(&move)), uint32(unsafe.Sizeof(move)),
			nil, 0, &returned, nil)
		if errors.Is(err, windows.ERROR_INVALID_FUNCTION) || errors.Is(err, windows.ERROR_NOT_SUPPORTED) {
			return result, fmt.Errorf("defragment %s: %w: FSCTL_MOVE_FILE (%v)", path, ErrUnsupported, err)
		}
		if err != nil {
			break // the run was taken meanwhile: keep what moved, count below
		}
	}
	if result.ExtentsAfter, err = countExtents(f); err != nil {
		return result, err
	}
	result.Improved = result.ExtentsAfter < result.ExtentsBefore
	return result, nil
}

// moveFileData is MOVE_FILE_DATA.
type moveFileData struct {
	File         windows.Handle
	StartingVCN  int64
	StartingLCN  int64
	ClusterCount uint32
	_            uint32
}

// findFreeRun returns the first LCN of the first run of clusters free clusters, -1 when none.
func findFreeRun(volume windows.Handle, clusters int64) (int64, error) {
	buffer := make([]byte, bitmapChunkBytes)
	var run freeRun
	for lcn := int64(0); ; {
		bitmap, err := readBitmap(volume, lcn, buffer)
		if err != nil {
			return 0, err
		}
		if start, ok := run.scan(bitmap, clusters); ok {
			return start, nil
		}
		next := bitmap.startLCN + bitmap.clusters
		if bitmap.clusters == 0 || next <= lcn {
			return -1, nil
		}
		lcn = next
	}
}

// clusterBytesOf is the allocation unit of path's volume.
func clusterBytesOf(path string) (int64, error) {
	name, err := windows.UTF16PtrFromString(filepath.Clean(path))
	if err != nil {
		return 0, err
	}
	root := make([]uint16, windows.MAX_PATH+1)
	if err := windows.GetVolumePathName(name, &root[0], uint32(len(root))); err != nil {
		return 0, err
	}
	var sectorsPerCluster, bytesPerSector, free, total uint32
	if r, _, err := procGetDiskFreeSpace.Call(uintptr(unsafe.Pointer(&root[0])), uintptr(unsafe.Pointer(&sectorsPerCluster)),
		uintptr(unsafe.Pointer(&bytesPerSector)), uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total))); r == 0 {
		return 0, fmt.Errorf("GetDiskFreeSpace: %w", err)
	}
	if sectorsPerCluster == 0 || bytesPerSector == 0 {
		return 0, fmt.Errorf("volume reports %d sectors of %d bytes per cluster", sectorsPerCluster, bytesPerSector)
	}
	return int64(sectorsPerCluster) * int64(bytesPerSector), nil
}

var procGetDiskFreeSpace = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetDiskFreeSpaceW")

// diskOf names the volume holding path; its idle time is what the idle rule measures.
func diskOf(_ string, path string) (string, error) {
	volume, device, err := volumeOf(path)
	if err != nil {
		return "", err
	}
	windows.CloseHandle(volume)
	return device, nil
}

// diskUtilisationPercent measures how busy the volume was over window from IOCTL_DISK_PERFORMANCE
// (DISK_PERFORMANCE: idle time against query time, both in 100 ns units). procPath is Linux's.
func diskUtilisationPercent(_ string, device string, window time.Duration, sleep func(time.Duration)) (float64, error) {
	d, err := windows.UTF16PtrFromString(device)
	if err != nil {
		return 0, err
	}
	h, err := windows.CreateFile(d, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return 0, fmt.Errorf("measure how busy %s is: %w", device, err)
	}
	defer windows.CloseHandle(h)
	before, err := diskPerformance(h)
	if err != nil {
		return 0, fmt.Errorf("measure how busy %s is: IOCTL_DISK_PERFORMANCE: %w", device, err)
	}
	sleep(window)
	after, err := diskPerformance(h)
	if err != nil {
		return 0, fmt.Errorf("measure how busy %s is: IOCTL_DISK_PERFORMANCE: %w", device, err)
	}
	return busyPercent(before, after), nil
}

func diskPerformance(h windows.Handle) (diskPerformanceCounters, error) {
	var raw [88]byte // DISK_PERFORMANCE
	var returned uint32
	if err := windows.DeviceIoControl(h, ioctlDiskPerformance, nil, 0, &raw[0], uint32(len(raw)), &returned, nil); err != nil {
		return diskPerformanceCounters{}, err
	}
	return decodeDiskPerformance(raw[:returned])
}
