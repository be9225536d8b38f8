package collector

import (
	"fmt"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/pdh"
)

// The \Memory and \Paging File counters the Windows meminfo source reads. The \Memory byte
// counters are PERF_COUNTER_LARGE_RAWCOUNT (First is the value now); % Usage is
// PERF_RAW_FRACTION (First over Second is the share of the page files in use).
var (
	pdhMemAvailable     = pdh.Counter{Object: "Memory", Name: "Available Bytes"}
	pdhMemCache         = pdh.Counter{Object: "Memory", Name: "Cache Bytes"}
	pdhMemStandbyCore   = pdh.Counter{Object: "Memory", Name: "Standby Cache Core Bytes"}
	pdhMemStandbyNormal = pdh.Counter{Object: "Memory", Name: "Standby Cache Normal Priority Bytes"}
	pdhMemStandbyRes    = pdh.Counter{Object: "Memory", Name: "Standby Cache Reserve Bytes"}
	pdhMemModified      = pdh.Counter{Object: "Memory", Name: "Modified Page List Bytes"}
	pdhMemFreeZero      = pdh.Counter{Object: "Memory", Name: "Free & Zero Page List Bytes"}
	pdhPagingUsage      = pdh.Counter{Object: "Paging File", Name: "% Usage"}
)

func pdhMemorySpecs() []pdh.Spec {
	var specs []pdh.Spec
	for _, c := range []pdh.Counter{pdhMemAvailable, pdhMemCache, pdhMemStandbyCore, pdhMemStandbyNormal,
		pdhMemStandbyRes, pdhMemModified, pdhMemFreeZero} {
		specs = append(specs, pdh.Spec{Counter: c})
	}
	return append(specs, pdh.Spec{Counter: pdhPagingUsage, Instanced: true})
}

// windowsMemoryTotals come from GlobalMemoryStatusEx, not PDH: installed memory the OS can use,
// and the commit limit (memory plus page files).
type windowsMemoryTotals struct {
	TotalPhysBytes, CommitLimitBytes uint64
}

// memoryFromPDH maps Windows memory onto the Linux columns (docs/metrics.md, "Windows"):
//   - available: Available Bytes (standby + free + zero lists: what can be handed out at once);
//   - free: Free & Zero Page List Bytes;
//   - cached: Cache Bytes (the system file cache's working set) + the standby lists (cached pages
//     no working set holds; they also hold trimmed process pages, so this is an upper bound of
//     file data) + the modified list;
//   - dirty: Modified Page List Bytes (pages to be written before reuse: file data and pages
//     bound for a page file alike);
//   - paging: page-file bytes = commit limit − installed memory, used = that × % Usage of _Total.
//
// buffers is not sent (no separate buffer cache).
func memoryFromPDH(s pdh.Snapshot, totals windowsMemoryTotals) (memoryBytes, error) {
	var missing []string
	get := func(c pdh.Counter) uint64 {
		v, ok := s.Get(c, pdh.NoInstance)
		if !ok || v.First < 0 {
			missing = append(missing, c.Name)
			return 0
		}
		return uint64(v.First)
	}
	standby := get(pdhMemStandbyCore) + get(pdhMemStandbyNormal) + get(pdhMemStandbyRes)
	modified := get(pdhMemModified)
	m := memoryBytes{
		Total: totals.TotalPhysBytes, Available: get(pdhMemAvailable), Free: get(pdhMemFreeZero),
		Cached: get(pdhMemCache) + standby + modified, Dirty: modified, NoBuffers: true,
	}
	if len(missing) > 0 {
		return memoryBytes{}, fmt.Errorf("meminfo: \\Memory lacks %s", strings.Join(missing, ", "))
	}
	if totals.TotalPhysBytes == 0 {
		return memoryBytes{}, fmt.Errorf("meminfo: installed memory unknown (GlobalMemoryStatusEx gave 0)")
	}
	m.NoSwap = true
	usage, ok := s.Get(pdhPagingUsage, "_Total")
	if ok && usage.Second > 0 && usage.First >= 0 && usage.First <= usage.Second && totals.CommitLimitBytes >= totals.TotalPhysBytes {
		// Without a page file there is no _Total instance: paging stays not measured.
		m.SwapTotal = totals.CommitLimitBytes - totals.TotalPhysBytes
		used := uint64(float64(m.SwapTotal) * float64(usage.First) / float64(usage.Second))
		m.SwapFree, m.NoSwap = m.SwapTotal-used, false
	}
	return m, nil
}
