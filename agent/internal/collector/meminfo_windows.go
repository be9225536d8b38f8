package collector

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procGlobalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// MEMORYSTATUSEX (sysinfoapi.h).
type memoryStatusEx struct {
	Length, MemoryLoad                   uint32
	TotalPhys, AvailPhys                 uint64
	TotalPageFile, AvailPageFile         uint64
	TotalVirtual, AvailVirtual, AvailExt uint64
}

// meminfoSource reads the \Memory counters through PDH and the totals from
// GlobalMemoryStatusEx; meminfo_pdh.go maps them.
func meminfoSource(Options) func() (memoryBytes, error) {
	reader := newPDHReader("meminfo", pdhMemorySpecs())
	return func() (memoryBytes, error) {
		s, err := reader.read()
		if err != nil {
			return memoryBytes{}, err
		}
		st := memoryStatusEx{Length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
		if r, _, callErr := procGlobalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&st))); r == 0 {
			return memoryBytes{}, fmt.Errorf("meminfo: GlobalMemoryStatusEx: %w", callErr)
		}
		return memoryFromPDH(s, windowsMemoryTotals{TotalPhysBytes: st.TotalPhys, CommitLimitBytes: st.TotalPageFile})
	}
}
