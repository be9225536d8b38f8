package otlpfixture

import (
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/catalogue"
)

// Latency is one device's latency histogram for one operation (read, write, flush, discard).
type Latency struct {
	Device, Operation string
	// Counts fills buckets 0, 1, …; the rest of the 28 are zero.
	Counts     []uint64
	SumSeconds float64
}

// Untimed is one device's spindle.disk.io.untimed for one operation (read, write, discard).
type Untimed struct {
	Device, Operation string
	Count             int64
}

// Database is one database's pg_stat_database deltas.
type Database struct {
	Name                                      string
	Commits, Rollbacks, BlocksHit, BlocksRead int64
	ReadSeconds                               float64
}

// Scan is one fragmentation root's last scan; Files are its worst files.
type Scan struct {
	Root                                            string
	Files, Fragmented, Extents, Excess, Unsupported int64
	DurationSeconds                                 float64
	WorstFiles                                      []WorstFile
}

// WorstFile is one of a scan's worst files.
type WorstFile struct {
	Path           string
	Extents, Bytes int64
}

// Deep is a batch's deep Linux telemetry, shaped as the agent sends it (docs/metrics.md).
type Deep struct {
	Latency []Latency
	Untimed []Untimed
	Splits  map[string]int64 // per device
	// PageCache is accesses, misses; nil leaves the family out.
	PageCache *[2]int64
	// TopFiles maps a file.path to its accesses, misses (spindle.page_cache.file.*).
	TopFiles  map[string][2]int64
	Databases []Database
	// Pressure maps "memory/some" style keys to stall seconds.
	Pressure     map[string]float64
	Scans        []Scan
	Capabilities []string // nil leaves the resource attribute out
	// Accel maps a spindle.read_cache.* or spindle.write_opt.* metric to its value, sent with
	// the catalogue's type (delta Sum or Gauge) and value type.
	Accel map[string]float64
	// ManagedFiles maps a file.path to spindle.write_opt.managed_file.extents.
	ManagedFiles map[string]int64
	// HoldoutBuckets maps a hash bucket (the int attribute spindle.read_cache.bucket) to its
	// managed accessed, managed missed, control accessed and control missed bytes
	// (spindle.read_cache.bucket.*).
	HoldoutBuckets map[int64][4]int64
}

// HoldoutBucketMetrics are spindle.read_cache.bucket.*, in Deep.HoldoutBuckets' order.
var HoldoutBucketMetrics = [4]string{"spindle.read_cache.bucket.managed.accessed", "spindle.read_cache.bucket.managed.missed",
	"spindle.read_cache.bucket.control.accessed", "spindle.read_cache.bucket.control.missed"}

// LatencyBounds are the catalogue's explicit bounds: 2^0 … 2^26 µs in seconds.
func LatencyBounds() []float64 {
	bounds := make([]float64, 27)
	for i := range bounds {
		bounds[i] = math.Ldexp(1, i) / 1e6
	}
	return bounds
}

// AddDeep appends d to the ResourceMetrics at index, with the interval of sample s.
func AddDeep(md pmetric.Metrics, index int, s Sample, d Deep) {
	rm := md.ResourceMetrics().At(index)
	if d.Capabilities != nil {
		slice := rm.Resource().Attributes().PutEmptySlice("spindle.agent.capabilities")
		for _, c := range d.Capabilities {
			slice.AppendEmpty().SetStr(c)
		}
	}
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName("github.com/spindle-io/spindle/agent/ebpf")
	b := builder{metrics: sm.Metrics(), start: pcommon.NewTimestampFromTime(s.Start), end: pcommon.NewTimestampFromTime(s.End)}
	if len(d.Latency) > 0 {
		b.latency(d.Latency)
	}
	if len(d.Untimed) > 0 {
		dps := b.delta("spindle.disk.io.untimed", "{operation}")
		for _, u := range d.Untimed {
			b.point(dps, true, diskOperationAttributes(u.Device, u.Operation)).SetIntValue(u.Count)
		}
	}
	if len(d.Splits) > 0 {
		dps := b.delta("spindle.disk.split_operations", "{operation}")
		for device, n := range d.Splits {
			b.point(dps, true, map[string]string{"system.device": device}).SetIntValue(n)
		}
	}
	if d.PageCache != nil {
		b.point(b.delta("spindle.page_cache.accesses", "{page}"), true, nil).SetIntValue(d.PageCache[0])
		b.point(b.delta("spindle.page_cache.misses", "{page}"), true, nil).SetIntValue(d.PageCache[1])
	}
	if len(d.TopFiles) > 0 {
		accesses := b.delta("spindle.page_cache.file.accesses", "{page}")
		misses := b.delta("spindle.page_cache.file.misses", "{page}")
		for path, counts := range d.TopFiles {
			b.point(accesses, true, map[string]string{"file.path": path}).SetIntValue(counts[0])
			b.point(misses, true, map[string]string{"file.path": path}).SetIntValue(counts[1])
		}
	}
	if len(d.Databases) > 0 {
		b.databases(d.Databases)
	}
	if len(d.Pressure) > 0 {
		dps := b.delta("spindle.pressure.stall_time", "s")
		for key, seconds := range d.Pressure {
			resource, scope, _ := cut(key)
			b.point(dps, true, map[string]string{"spindle.pressure.resource": resource, "spindle.pressure.scope": scope}).SetDoubleValue(seconds)
		}
	}
	if len(d.Scans) > 0 {
		b.scans(d.Scans)
	}
	for name, value := range d.Accel {
		m := catalogue.MustLookup(name)
		var dps pmetric.NumberDataPointSlice
		if m.Type == "sum" {
			dps = b.delta(name, m.Unit)
		} else {
			dps = b.gauge(name, m.Unit)
		}
		dp := b.point(dps, m.Type == "sum", nil)
		if m.ValueType == "double" {
			dp.SetDoubleValue(value)
		} else {
			dp.SetIntValue(int64(value))
		}
	}
	if len(d.HoldoutBuckets) > 0 {
		for i, name := range HoldoutBucketMetrics {
			dps := b.delta(name, "By")
			for bucket, counts := range d.HoldoutBuckets {
				dp := b.point(dps, true, nil)
				dp.Attributes().PutInt("spindle.read_cache.bucket", bucket)
				dp.SetIntValue(counts[i])
			}
		}
	}
	if len(d.ManagedFiles) > 0 {
		dps := b.gauge("spindle.write_opt.managed_file.extents", "{extent}")
		for path, extents := range d.ManagedFiles {
			b.point(dps, false, map[string]string{"file.path": path}).SetIntValue(extents)
		}
	}
}

func cut(key string) (string, string, bool) {
	for i := range key {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return key, "", false
}

// diskOperationAttributes are the attributes of a latency histogram or untimed count: reads and
// writes by direction, flushes and discards as writes with spindle.disk.operation.
func diskOperationAttributes(device, operation string) map[string]string {
	switch operation {
	case "flush", "discard":
		return map[string]string{"system.device": device, "disk.io.direction": "write", "spindle.disk.operation": operation}
	}
	return map[string]string{"system.device": device, "disk.io.direction": operation}
}

func (b builder) latency(histograms []Latency) {
	m := b.metrics.AppendEmpty()
	m.SetName("spindle.disk.io.latency")
	m.SetUnit("s")
	h := m.SetEmptyHistogram()
	h.SetAggregationTemporality(pmetric.AggregationTemporalityDelta)
	for _, l := range histograms {
		dp := h.DataPoints().AppendEmpty()
		dp.SetStartTimestamp(b.start)
		dp.SetTimestamp(b.end)
		for k, v := range diskOperationAttributes(l.Device, l.Operation) {
			dp.Attributes().PutStr(k, v)
		}
		dp.ExplicitBounds().FromRaw(LatencyBounds())
		counts := make([]uint64, 28)
		var total uint64
		for i, c := range l.Counts {
			counts[i] = c
			total += c
		}
		dp.BucketCounts().FromRaw(counts)
		dp.SetCount(total)
		dp.SetSum(l.SumSeconds)
	}
}

func (b builder) databases(databases []Database) {
	commits := b.delta("spindle.db.postgresql.commits", "{transaction}")
	rollbacks := b.delta("spindle.db.postgresql.rollbacks", "{transaction}")
	hit := b.delta("spindle.db.postgresql.blocks_hit", "{block}")
	read := b.delta("spindle.db.postgresql.blocks_read", "{block}")
	readTime := b.delta("spindle.db.postgresql.block_read_time", "s")
	for _, d := range databases {
		attrs := map[string]string{"db.namespace": d.Name}
		b.point(commits, true, attrs).SetIntValue(d.Commits)
		b.point(rollbacks, true, attrs).SetIntValue(d.Rollbacks)
		b.point(hit, true, attrs).SetIntValue(d.BlocksHit)
		b.point(read, true, attrs).SetIntValue(d.BlocksRead)
		b.point(readTime, true, attrs).SetDoubleValue(d.ReadSeconds)
	}
}

func (b builder) scans(scans []Scan) {
	files := b.gauge("spindle.fragmentation.files", "{file}")
	fragmented := b.gauge("spindle.fragmentation.fragmented_files", "{file}")
	extents := b.gauge("spindle.fragmentation.extents", "{extent}")
	excess := b.gauge("spindle.fragmentation.excess_extents", "{extent}")
	duration := b.gauge("spindle.fragmentation.scan_duration", "s")
	unsupported := b.gauge("spindle.fragmentation.unsupported_files", "{file}")
	worst := b.gauge("spindle.fragmentation.file.extents", "{extent}")
	for _, s := range scans {
		root := map[string]string{"spindle.scan.root": s.Root}
		b.point(files, false, root).SetIntValue(s.Files)
		b.point(fragmented, false, root).SetIntValue(s.Fragmented)
		b.point(extents, false, root).SetIntValue(s.Extents)
		b.point(excess, false, root).SetIntValue(s.Excess)
		b.point(duration, false, root).SetDoubleValue(s.DurationSeconds)
		b.point(unsupported, false, root).SetIntValue(s.Unsupported)
		for _, f := range s.WorstFiles {
			dp := b.point(worst, false, map[string]string{"spindle.scan.root": s.Root, "file.path": f.Path})
			dp.Attributes().PutInt("file.size", f.Bytes)
			dp.SetIntValue(f.Extents)
		}
	}
}
