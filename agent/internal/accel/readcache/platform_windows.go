package readcache

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/memlimit"
	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// Windows without a kernel driver: there is no query of which pages of a file are in the system
// cache (no mincore) and no per-file eviction (no POSIX_FADV_DONTNEED), so the sampler measures
// no residency, the hot set cannot be ranked by heat (pins first, then path order), misses and
// scanners cannot be seen, and what the cache can do is read hot files into the cache (they then
// stay on the standby list while memory allows) and lock pinned files into its working set.

const (
	fadviseDontNeed = iota
	fadviseWillNeed
)

// windowsPageBytes is the page size of x64 and arm64 Windows.
const windowsPageBytes = 4096

// ResidencyMeasurable says what the cache cannot do on Windows, for the capability report.
func ResidencyMeasurable() error {
	return fmt.Errorf("%w: Windows has no query of which file pages are in memory without a kernel driver: "+
		"resident bytes and misses are not measured (not sent), the hot set is the pins then the managed files in path order, "+
		"scanners are not detected and hits are not counted (no ETW file events); hot files are prefetched and pins locked", ErrUnsupported)
}

// sampler on Windows only reads the file's size (from its directory entry, without opening it:
// every managed file, every second): residency cannot be measured. Pins and prefetch open the
// file through safeopen.
type sampler struct {
	pageSize          int64
	measuresResidency bool
}

func newSampler() *sampler { return &sampler{pageSize: windowsPageBytes} }

// currentThreadID is 0: no page-cache program counts the cache's own thread on Windows.
func currentThreadID() int { return 0 }

// pinManagedRuns pins the whole file: nothing is held out where it cannot be measured.
func pinManagedRuns(path string, _ [][2]int64) (*pinning, error) { return pinFile(path) }

func (s *sampler) sample(path string) (residency, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return residency{}, err
	}
	if !info.Mode().IsRegular() {
		return residency{}, &os.PathError{Op: "sample", Path: path, Err: safeopen.ErrNotRegular}
	}
	return residency{sizeBytes: info.Size()}, nil
}

// advise with fadviseWillNeed reads the range through the system cache (prefetch); with
// fadviseDontNeed it does nothing: Windows cannot evict one file's cached pages, and the pages
// of an unlocked pin go back to the standby list, which Windows already counts as available.
func advise(path string, offset, length int64, advice int) error {
	if advice != fadviseWillNeed {
		return nil
	}
	return prefetch(path, offset, length)
}

// adviseRuns advises each range in turn (nothing is held out on Windows, so it is one range).
func adviseRuns(path string, runs [][2]int64, advice int) error {
	for _, run := range runs {
		if err := advise(path, run[0], run[1], advice); err != nil {
			return err
		}
	}
	return nil
}

// prefetchChunkBytes is one read of the prefetch; the cache manager reads ahead of it.
const prefetchChunkBytes = 1 << 20

var prefetchBuffers = sync.Pool{New: func() any { return make([]byte, prefetchChunkBytes) }}

// prefetch reads [offset, offset+length) with FILE_FLAG_SEQUENTIAL_SCAN so the cache manager
// reads ahead in large requests. The handle's I/O priority hint is low, so the reads wait behind
// the workload's. The thread's memory priority is set to normal: pages read at a lower one go to
// the standby lists Windows repurposes first, which would defeat the cache, and the runtime may
// run this on a thread whose priority something lowered. Best effort: normal is every thread's
// default, so where SetThreadInformation refuses (Wine) the read goes ahead.
func prefetch(path string, offset, length int64) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread() // normal is every thread's default: nothing to restore
	_ = setThreadMemoryPriority(memoryPriorityNormal)
	f, _, err := safeopen.Open(path, safeopen.Read, safeopen.Options{Sequential: true})
	if err != nil {
		return err
	}
	defer f.Close()
	if err := setIOPriorityHint(windows.Handle(f.Fd()), ioPriorityHintLow); err != nil {
		return fmt.Errorf("prefetch %s: %w", path, err)
	}
	buffer := prefetchBuffers.Get().([]byte)
	defer prefetchBuffers.Put(buffer)
	for done := int64(0); done < length; {
		n, err := f.ReadAt(buffer[:min(int64(len(buffer)), length-done)], offset+done)
		done += int64(n)
		if errors.Is(err, io.EOF) {
			return nil // the file shrank meanwhile
		}
		if err != nil {
			return fmt.Errorf("prefetch %s: %w", path, err)
		}
	}
	return nil
}

// FILE_IO_PRIORITY_HINT_INFO and MEMORY_PRIORITY_INFORMATION values (winbase.h, processthreadsapi.h).
const (
	ioPriorityHintLow    = 1
	memoryPriorityNormal = 5
	threadMemoryPriority = 0 // THREAD_INFORMATION_CLASS ThreadMemoryPriority
)

var (
	kernel32                      = windows.NewLazySystemDLL("kernel32.dll")
	procSetThreadInformation      = kernel32.NewProc("SetThreadInformation")
	procGlobalMemoryStatusEx      = kernel32.NewProc("GlobalMemoryStatusEx")
	procCreateMemoryResourceNotif = kernel32.NewProc("CreateMemoryResourceNotification")
	procQueryMemoryResourceNotif  = kernel32.NewProc("QueryMemoryResourceNotification")
)

// errWorkingSetQuota is ERROR_WORKING_SET_QUOTA: VirtualLock past the working-set minimum.
var errWorkingSetQuota error = windows.Errno(1453)

func setIOPriorityHint(h windows.Handle, hint uint32) error {
	if err := windows.SetFileInformationByHandle(h, windows.FileIoPriorityHintInfo, (*byte)(unsafe.Pointer(&hint)), 4); err != nil {
		return fmt.Errorf("set the I/O priority hint (FileIoPriorityHintInfo): %w", err)
	}
	return nil
}

func setThreadMemoryPriority(priority uint32) error {
	if err := procSetThreadInformation.Find(); err != nil {
		return fmt.Errorf("SetThreadInformation: %w", err)
	}
	r, _, err := procSetThreadInformation.Call(uintptr(windows.CurrentThread()), threadMemoryPriority,
		uintptr(unsafe.Pointer(&priority)), 4)
	if r == 0 {
		return fmt.Errorf("set the thread's memory priority (SetThreadInformation): %w", err)
	}
	return nil
}

// pinning is a file mapped into the agent's address space and locked into its working set:
// Windows keeps locked pages in memory while the agent runs.
type pinning struct {
	view      uintptr
	sizeBytes int64
}

// pinFile maps the whole file read-only and VirtualLocks it, which reads every page in. The
// working set must have room (checkLockLimit sized it for the policy's pins).
func pinFile(path string) (*pinning, error) {
	f, info, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return nil, err
	}
	defer f.Close() // the view keeps the file
	if info.Size == 0 {
		return &pinning{}, nil
	}
	if info.Size > int64(^uintptr(0)>>1) {
		return nil, fmt.Errorf("pin %s: %d bytes do not fit the address space", path, info.Size)
	}
	mapping, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY, 0, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("pin %s: CreateFileMapping: %w", path, err)
	}
	defer windows.CloseHandle(mapping) // the view keeps the mapping
	view, err := windows.MapViewOfFile(mapping, windows.FILE_MAP_READ, 0, 0, uintptr(info.Size))
	if err != nil {
		return nil, fmt.Errorf("pin %s: MapViewOfFile: %w", path, err)
	}
	if err := windows.VirtualLock(view, uintptr(info.Size)); err != nil {
		_ = windows.UnmapViewOfFile(view)
		if errors.Is(err, errWorkingSetQuota) {
			return nil, fmt.Errorf("VirtualLock %s (%d bytes): %w: the agent's working set cannot hold the pins; "+
				"run the service as LocalSystem (it may raise its working set) or pin less", path, info.Size, err)
		}
		return nil, fmt.Errorf("VirtualLock %s: %w", path, err)
	}
	return &pinning{view: view, sizeBytes: info.Size}, nil
}

// release unlocks and unmaps; the pages go to the standby list and stay cached while memory allows.
func (p *pinning) release() {
	if p == nil || p.view == 0 {
		return
	}
	_ = windows.VirtualUnlock(p.view, uintptr(p.sizeBytes))
	_ = windows.UnmapViewOfFile(p.view)
	p.view = 0
}

// workingSet remembers the agent's working-set bounds before the pins raised them.
var workingSet struct {
	sync.Mutex
	known              bool
	baseMin, baseMax   uintptr
	lockedBytesAllowed int64
}

// workingSetSlackBytes is the room left above the pins for the agent's own pages: VirtualLock
// can lock only up to the working-set minimum less what the process itself uses.
const workingSetSlackBytes = 64 << 20

// checkLockLimit sizes the agent's working set so that needBytes can be locked: the minimum is
// raised by needBytes over what the agent had at start (the maximum too, when below), both as
// soft limits so Windows may still trim the rest under pressure. Back to the start values when
// nothing is pinned. procPath is Linux's and unused here.
func checkLockLimit(_ string, needBytes int64) error {
	workingSet.Lock()
	defer workingSet.Unlock()
	process := windows.CurrentProcess()
	if !workingSet.known {
		var flags uint32
		windows.GetProcessWorkingSetSizeEx(process, &workingSet.baseMin, &workingSet.baseMax, &flags)
		workingSet.known = true
	}
	if needBytes == workingSet.lockedBytesAllowed {
		return nil
	}
	minimum := workingSet.baseMin + uintptr(needBytes)
	if needBytes > 0 {
		minimum += workingSetSlackBytes
	}
	maximum := max(workingSet.baseMax, minimum+workingSetSlackBytes)
	const softLimits = windows.QUOTA_LIMITS_HARDWS_MIN_DISABLE | windows.QUOTA_LIMITS_HARDWS_MAX_DISABLE
	if err := windows.SetProcessWorkingSetSizeEx(process, minimum, maximum, softLimits); err != nil {
		return fmt.Errorf("the pinned files need %d bytes locked but the agent's working set cannot be raised to %d bytes "+
			"(SetProcessWorkingSetSizeEx: %v): run the service as LocalSystem (it needs SeIncreaseBasePriorityPrivilege), "+
			"or pin less", needBytes, minimum, err)
	}
	workingSet.lockedBytesAllowed = needBytes
	return nil
}

// systemMemory reads available memory from GlobalMemoryStatusEx (ullAvailPhys: the free, zeroed
// and standby lists, the "\Memory\Available Bytes" counter) and the low-memory resource
// notification, Windows' own verdict that memory is scarce. There is no PSI and no cgroup.
type systemMemory struct{ lowMemory windows.Handle }

func defaultMemory(string) (MemorySource, error) {
	var m memoryStatusEx
	if err := globalMemoryStatus(&m); err != nil {
		return nil, err
	}
	s := &systemMemory{}
	const lowMemoryResourceNotification = 0
	if h, _, _ := procCreateMemoryResourceNotif.Call(lowMemoryResourceNotification); h != 0 {
		s.lowMemory = windows.Handle(h)
	}
	return s, nil
}

// memoryStatusEx is MEMORYSTATUSEX.
type memoryStatusEx struct {
	Length               uint32
	MemoryLoad           uint32
	TotalPhys            uint64
	AvailPhys            uint64
	TotalPageFile        uint64
	AvailPageFile        uint64
	TotalVirtual         uint64
	AvailVirtual         uint64
	AvailExtendedVirtual uint64
}

func globalMemoryStatus(m *memoryStatusEx) error {
	m.Length = uint32(unsafe.Sizeof(*m))
	if r, _, err := procGlobalMemoryStatusEx.Call(uintptr(unsafe.Pointer(m))); r == 0 {
		return fmt.Errorf("GlobalMemoryStatusEx: %w", err)
	}
	return nil
}

func (s *systemMemory) Read() (memlimit.Snapshot, error) {
	var m memoryStatusEx
	if err := globalMemoryStatus(&m); err != nil {
		return memlimit.Snapshot{}, err
	}
	snapshot := memlimit.Snapshot{MemAvailableBytes: int64(m.AvailPhys), PressureSomeAvg10: math.NaN()}
	if s.lowMemory != 0 {
		var low int32
		if r, _, _ := procQueryMemoryResourceNotif.Call(uintptr(s.lowMemory), uintptr(unsafe.Pointer(&low))); r != 0 {
			snapshot.LowMemory = low != 0
		}
	}
	return snapshot, nil
}
