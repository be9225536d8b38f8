package otlpfixture

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// HostDisk is one device's counters since boot, as the hostmetrics receiver's disk scraper
// reports them (cumulative), and its pending operations (a level).
type HostDisk struct {
	Device                       string
	ReadBytes, WriteBytes        int64
	ReadOps, WriteOps            int64
	ReadMerged, WriteMerged      int64
	ReadSeconds, WriteSeconds    float64
	IOSeconds, WeightedIOSeconds float64
	PendingOperations            int64
}

// HostMemory is the memory scraper's states (system.memory.usage) plus the optional
// system.memory.limit and system.linux.memory.available, in bytes.
type HostMemory struct {
	Used, Free, Buffered, Cached, SlabReclaimable, SlabUnreclaimable int64
	Limit, Available                                                 int64
}

// HostSwap is one swap area of the paging scraper (system.paging.usage).
type HostSwap struct {
	Device             string
	Used, Free, Cached int64
}

// Scrape is one collection of the hostmetrics receiver's disk, memory and paging scrapers,
// shaped as contrib v0.162.0's metadata.yaml documents: cumulative Sums since Start (boot),
// attributes device, direction and state, unit {operations}. Paging operations and faults are
// included as the scraper sends them (Spindle stores no column for them).
type Scrape struct {
	Start, Time                                 time.Time
	Disks                                       []HostDisk
	Memory                                      *HostMemory
	Swap                                        []HostSwap
	PageIns, PageOuts, MajorFaults, MinorFaults int64
	// Attributes are the resource attributes (a Collector adds host.name only with the
	// resourcedetection processor; none by default).
	Attributes map[string]string
}

// BuildHostmetrics returns an export with one ResourceMetrics per scrape, no spindle.batch.seq.
func BuildHostmetrics(scrapes ...Scrape) pmetric.Metrics {
	md := pmetric.NewMetrics()
	for _, s := range scrapes {
		rm := md.ResourceMetrics().AppendEmpty()
		for k, v := range s.Attributes {
			rm.Resource().Attributes().PutStr(k, v)
		}
		start, now := pcommon.NewTimestampFromTime(s.Start), pcommon.NewTimestampFromTime(s.Time)
		if len(s.Disks) > 0 {
			addHostDisks(rm.ScopeMetrics().AppendEmpty(), s.Disks, start, now)
		}
		if s.Memory != nil {
			addHostMemory(rm.ScopeMetrics().AppendEmpty(), *s.Memory, start, now)
		}
		if len(s.Swap) > 0 || s.MinorFaults > 0 {
			addHostPaging(rm.ScopeMetrics().AppendEmpty(), s, start, now)
		}
	}
	return md
}

type hostSum struct {
	metric pmetric.Metric
	start  pcommon.Timestamp
	now    pcommon.Timestamp
}

func newHostSum(scope pmetric.ScopeMetrics, name, unit string, monotonic bool, start, now pcommon.Timestamp) hostSum {
	m := scope.Metrics().AppendEmpty()
	m.SetName(name)
	m.SetUnit(unit)
	sum := m.SetEmptySum()
	sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	sum.SetIsMonotonic(monotonic)
	return hostSum{metric: m, start: start, now: now}
}

func (h hostSum) point(attrs ...string) pmetric.NumberDataPoint {
	dp := h.metric.Sum().DataPoints().AppendEmpty()
	dp.SetStartTimestamp(h.start)
	dp.SetTimestamp(h.now)
	for i := 0; i+1 < len(attrs); i += 2 {
		dp.Attributes().PutStr(attrs[i], attrs[i+1])
	}
	return dp
}

func addHostDisks(scope pmetric.ScopeMetrics, disks []HostDisk, start, now pcommon.Timestamp) {
	scope.Scope().SetName("github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver/internal/scraper/diskscraper")
	io := newHostSum(scope, "system.disk.io", "By", true, start, now)
	ops := newHostSum(scope, "system.disk.operations", "{operations}", true, start, now)
	ioTime := newHostSum(scope, "system.disk.io_time", "s", true, start, now)
	opTime := newHostSum(scope, "system.disk.operation_time", "s", true, start, now)
	weighted := newHostSum(scope, "system.disk.weighted_io_time", "s", true, start, now)
	pending := newHostSum(scope, "system.disk.pending_operations", "{operations}", false, start, now)
	merged := newHostSum(scope, "system.disk.merged", "{operations}", true, start, now)
	for _, d := range disks {
		io.point("device", d.Device, "direction", "read").SetIntValue(d.ReadBytes)
		io.point("device", d.Device, "direction", "write").SetIntValue(d.WriteBytes)
		ops.point("device", d.Device, "direction", "read").SetIntValue(d.ReadOps)
		ops.point("device", d.Device, "direction", "write").SetIntValue(d.WriteOps)
		ioTime.point("device", d.Device).SetDoubleValue(d.IOSeconds)
		opTime.point("device", d.Device, "direction", "read").SetDoubleValue(d.ReadSeconds)
		opTime.point("device", d.Device, "direction", "write").SetDoubleValue(d.WriteSeconds)
		weighted.point("device", d.Device).SetDoubleValue(d.WeightedIOSeconds)
		pending.point("device", d.Device).SetIntValue(d.PendingOperations)
		merged.point("device", d.Device, "direction", "read").SetIntValue(d.ReadMerged)
		merged.point("device", d.Device, "direction", "write").SetIntValue(d.WriteMerged)
	}
}

func addHostMemory(scope pmetric.ScopeMetrics, mem HostMemory, start, now pcommon.Timestamp) {
	scope.Scope().SetName("github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver/internal/scraper/memoryscraper")
	usage := newHostSum(scope, "system.memory.usage", "By", false, start, now)
	for _, s := range []struct {
		state string
		v     int64
	}{{"used", mem.Used}, {"free", mem.Free}, {"buffered", mem.Buffered}, {"cached", mem.Cached},
		{"slab_reclaimable", mem.SlabReclaimable}, {"slab_unreclaimable", mem.SlabUnreclaimable}} {
		usage.point("state", s.state).SetIntValue(s.v)
	}
	limit := newHostSum(scope, "system.memory.limit", "By", false, start, now)
	limit.point().SetIntValue(mem.Limit)
	available := newHostSum(scope, "system.linux.memory.available", "By", false, start, now)
	available.point().SetIntValue(mem.Available)
}

func addHostPaging(scope pmetric.ScopeMetrics, s Scrape, start, now pcommon.Timestamp) {
	scope.Scope().SetName("github.com/open-telemetry/opentelemetry-collector-contrib/receiver/hostmetricsreceiver/internal/scraper/pagingscraper")
	usage := newHostSum(scope, "system.paging.usage", "By", false, start, now)
	for _, swap := range s.Swap {
		usage.point("device", swap.Device, "state", "used").SetIntValue(swap.Used)
		usage.point("device", swap.Device, "state", "free").SetIntValue(swap.Free)
		usage.point("device", swap.Device, "state", "cached").SetIntValue(swap.Cached)
	}
	ops := newHostSum(scope, "system.paging.operations", "{operations}", true, start, now)
	ops.point("direction", "page_in", "type", "major").SetIntValue(s.PageIns)
	ops.point("direction", "page_out", "type", "major").SetIntValue(s.PageOuts)
	faults := newHostSum(scope, "system.paging.faults", "{faults}", true, start, now)
	faults.point("type", "major").SetIntValue(s.MajorFaults)
	faults.point("type", "minor").SetIntValue(s.MinorFaults)
}
