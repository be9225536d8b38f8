package collector

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

// bytesPerSector is fixed by the kernel: /proc/diskstats counts 512-byte sectors whatever
// the device's real sector size.
const bytesPerSector = 512

func init() { register("diskstats", true, newDiskstatsCollector) }

// diskCounters are the cumulative counters of one /proc/diskstats line (fields 1-11; the
// discard and flush fields of newer kernels are not used yet).
type diskCounters struct {
	ReadOps, ReadMerged, ReadSectors, ReadTimeMs     uint64
	WriteOps, WriteMerged, WriteSectors, WriteTimeMs uint64
	InProgress                                       uint64 // a gauge, not a counter
	IOTimeMs, WeightedIOTimeMs                       uint64

	// Windows (PDH) counts no merges, so none are sent rather than zeros; it does count split
	// I/Os (Linux gets those from eBPF, the block_split collector).
	NoMerges  bool
	HasSplits bool
	SplitOps  uint64
}

type diskSample struct {
	Device string
	diskCounters
}

// parseDiskstats reads /proc/diskstats. Lines with fewer than 11 statistics (partitions on
// 2.6 kernels) are skipped: they are never whole disks.
func parseDiskstats(r io.Reader) ([]diskSample, error) {
	var samples []diskSample
	scanner := bufio.NewScanner(r)
	for line := 1; scanner.Scan(); line++ {
		fields := strings.Fields(scanner.Text())
		if len(fields) < 14 {
			continue
		}
		var v [11]uint64
		for i := range v {
			n, err := strconv.ParseUint(fields[3+i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("diskstats line %d (%s): field %d: %w", line, fields[2], i+1, err)
			}
			v[i] = n
		}
		samples = append(samples, diskSample{Device: fields[2], diskCounters: diskCounters{
			ReadOps: v[0], ReadMerged: v[1], ReadSectors: v[2], ReadTimeMs: v[3],
			WriteOps: v[4], WriteMerged: v[5], WriteSectors: v[6], WriteTimeMs: v[7],
			InProgress: v[8], IOTimeMs: v[9], WeightedIOTimeMs: v[10],
		}})
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read diskstats: %w", err)
	}
	return samples, nil
}

// counterDelta returns cur-prev. A decrease is either a 32-bit wrap (the time fields are
// 32-bit milliseconds on older kernels and wrap every 49.7 days) or a reset (the device was
// removed and re-added under the same name); ok is false for a reset.
func counterDelta(prev, cur uint64) (delta uint64, ok bool) {
	if cur >= prev {
		return cur - prev, true
	}
	if prev <= math.MaxUint32 {
		wrapped := cur + (math.MaxUint32 + 1) - prev
		if wrapped < 1<<31 { // a real wrap covers a small step; a reset looks like a huge one
			return wrapped, true
		}
	}
	return 0, false
}

// diffCounters returns the per-interval deltas, or ok=false if any counter was reset: the
// interval of a reset device is unknown, so it is re-baselined rather than guessed.
func diffCounters(prev, cur diskCounters) (d diskCounters, ok bool) {
	pairs := []struct {
		prev, cur uint64
		out       *uint64
	}{
		{prev.ReadOps, cur.ReadOps, &d.ReadOps}, {prev.ReadMerged, cur.ReadMerged, &d.ReadMerged},
		{prev.ReadSectors, cur.ReadSectors, &d.ReadSectors}, {prev.ReadTimeMs, cur.ReadTimeMs, &d.ReadTimeMs},
		{prev.WriteOps, cur.WriteOps, &d.WriteOps}, {prev.WriteMerged, cur.WriteMerged, &d.WriteMerged},
		{prev.WriteSectors, cur.WriteSectors, &d.WriteSectors}, {prev.WriteTimeMs, cur.WriteTimeMs, &d.WriteTimeMs},
		{prev.IOTimeMs, cur.IOTimeMs, &d.IOTimeMs}, {prev.WeightedIOTimeMs, cur.WeightedIOTimeMs, &d.WeightedIOTimeMs},
		{prev.SplitOps, cur.SplitOps, &d.SplitOps},
	}
	for _, p := range pairs {
		delta, fine := counterDelta(p.prev, p.cur)
		if !fine {
			return diskCounters{}, false
		}
		*p.out = delta
	}
	d.InProgress = cur.InProgress
	d.NoMerges, d.HasSplits = cur.NoMerges, cur.HasSplits && prev.HasSplits
	return d, true
}

// DiskRates are the values the console derives (docs/metrics.md), computed by the agent for
// `spindle-agent status` from one interval's deltas.
type DiskRates struct {
	Device             string  `json:"device"`
	IntervalSeconds    float64 `json:"intervalSeconds"`
	ReadIOPS           float64 `json:"readIops"`
	WriteIOPS          float64 `json:"writeIops"`
	ReadMBps           float64 `json:"readMBps"`
	WriteMBps          float64 `json:"writeMBps"`
	ReadLatencyMs      float64 `json:"readLatencyMs"`  // I/O-weighted average; 0 without reads
	WriteLatencyMs     float64 `json:"writeLatencyMs"` // I/O-weighted average; 0 without writes
	QueueDepth         float64 `json:"queueDepth"`
	UtilisationPercent float64 `json:"utilisationPercent"`
	InProgress         uint64  `json:"inProgress"`
}

func deriveRates(device string, d diskCounters, intervalSeconds float64) DiskRates {
	r := DiskRates{Device: device, IntervalSeconds: intervalSeconds, InProgress: d.InProgress}
	if intervalSeconds > 0 {
		r.ReadIOPS = float64(d.ReadOps) / intervalSeconds
		r.WriteIOPS = float64(d.WriteOps) / intervalSeconds
		r.ReadMBps = float64(d.ReadSectors*bytesPerSector) / intervalSeconds / 1e6
		r.WriteMBps = float64(d.WriteSectors*bytesPerSector) / intervalSeconds / 1e6
		r.QueueDepth = float64(d.WeightedIOTimeMs) / (1000 * intervalSeconds)
		r.UtilisationPercent = 100 * float64(d.IOTimeMs) / (1000 * intervalSeconds)
	}
	if d.ReadOps > 0 {
		r.ReadLatencyMs = float64(d.ReadTimeMs) / float64(d.ReadOps)
	}
	if d.WriteOps > 0 {
		r.WriteLatencyMs = float64(d.WriteTimeMs) / float64(d.WriteOps)
	}
	return r
}

// DiskRatesReporter is implemented by collectors that can show per-device rates in status.
type DiskRatesReporter interface {
	DiskRates() []DiskRates
}

type diskstatsCollector struct {
	read   func() ([]diskSample, error) // the OS-specific source, already filtered
	now    func() time.Time
	logger *slog.Logger

	mu     sync.Mutex
	prev   map[string]diskCounters
	prevAt time.Time
	rates  []DiskRates
}

var _ DiskRatesReporter = (*diskstatsCollector)(nil)

func newDiskstatsCollector(opts Options) (Collector, error) {
	return &diskstatsCollector{read: diskstatsSource(opts), now: time.Now, logger: opts.Logger}, nil
}

// Collect records per-device deltas since the previous call. The first call only sets the
// baseline; a device that appears is baselined on its first tick and one that disappears is
// forgotten, so neither produces a bogus delta.
func (c *diskstatsCollector) Collect(_ context.Context, sink Sink) error {
	samples, err := c.read()
	if err != nil {
		return err
	}
	at := c.now()

	c.mu.Lock()
	defer c.mu.Unlock()
	first := c.prev == nil
	interval := at.Sub(c.prevAt).Seconds()
	next := make(map[string]diskCounters, len(samples))
	var rates []DiskRates
	for _, s := range samples {
		next[s.Device] = s.diskCounters
		prev, known := c.prev[s.Device]
		if !known {
			continue
		}
		delta, ok := diffCounters(prev, s.diskCounters)
		if !ok {
			c.logger.Info("disk counters went backwards (device reset); re-baselining", "device", s.Device)
			continue
		}
		recordDisk(sink, s.Device, delta)
		rates = append(rates, deriveRates(s.Device, delta, interval))
	}
	sort.Slice(rates, func(i, j int) bool { return rates[i].Device < rates[j].Device })
	c.prev, c.prevAt, c.rates = next, at, rates
	if first {
		return fmt.Errorf("diskstats: first sample sets the baseline: %w", ErrNoData)
	}
	return nil
}

func recordDisk(sink Sink, device string, d diskCounters) {
	dev := deviceAttr(device)
	read := attribute.String(catalogue.AttrDirection, catalogue.DirectionRead)
	write := attribute.String(catalogue.AttrDirection, catalogue.DirectionWrite)

	sink.AddInt(catalogue.DiskOperations, int64(d.ReadOps), dev, read)
	sink.AddInt(catalogue.DiskOperations, int64(d.WriteOps), dev, write)
	sink.AddInt(catalogue.DiskIO, int64(d.ReadSectors*bytesPerSector), dev, read)
	sink.AddInt(catalogue.DiskIO, int64(d.WriteSectors*bytesPerSector), dev, write)
	if !d.NoMerges {
		sink.AddInt(catalogue.DiskMerged, int64(d.ReadMerged), dev, read)
		sink.AddInt(catalogue.DiskMerged, int64(d.WriteMerged), dev, write)
	}
	if d.HasSplits {
		sink.AddInt(catalogue.DiskSplitOperations, int64(d.SplitOps), dev)
	}
	sink.AddFloat(catalogue.DiskOperationTime, msToSeconds(d.ReadTimeMs), dev, read)
	sink.AddFloat(catalogue.DiskOperationTime, msToSeconds(d.WriteTimeMs), dev, write)
	sink.AddFloat(catalogue.DiskIOTime, msToSeconds(d.IOTimeMs), dev)
	sink.AddFloat(catalogue.DiskWeightedIOTime, msToSeconds(d.WeightedIOTimeMs), dev)
	sink.SetInt(catalogue.DiskPendingOperations, pendingOperations(d.InProgress), dev)
}

// pendingOperations guards against a known kernel accounting bug where the in-flight count
// underflows and /proc shows 4294967295: such a value is reported as 0, not 4 billion.
func pendingOperations(inProgress uint64) int64 {
	if inProgress > math.MaxInt32 {
		return 0
	}
	return int64(inProgress)
}

func msToSeconds(ms uint64) float64 { return float64(ms) / 1000 }

// DiskRates returns the rates of the last interval, sorted by device.
func (c *diskstatsCollector) DiskRates() []DiskRates {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]DiskRates(nil), c.rates...)
}

func (c *diskstatsCollector) Close() error { return nil }
