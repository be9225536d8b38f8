package collector

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/pdh"
)

// The \PhysicalDisk counters the Windows diskstats source reads, as raw values (pdh package).
// What each raw value holds, by counter type:
//   - Disk Reads/sec, Disk Writes/sec, Split IO/Sec (PERF_COUNTER_COUNTER), Disk Read/Write
//     Bytes/sec (PERF_COUNTER_BULK_COUNT): First is the cumulative count since boot.
//   - Avg. Disk sec/Read, /Write (PERF_AVERAGE_TIMER): First is the cumulative time of the
//     completed I/Os in ticks of the counter's time base, Second their count.
//   - % Idle Time (PERF_PRECISION_100NS_TIMER): First is the cumulative idle time in 100 ns
//     units, Second the 100 ns timestamp it was read at; busy time = Second − First.
//   - Avg. Disk Queue Length (PERF_COUNTER_100NS_QUEUELEN_TYPE): First is the cumulative queue
//     length × time in 100 ns units, which is Linux's weighted I/O time.
//   - Current Disk Queue Length (PERF_COUNTER_RAWCOUNT): First is the I/Os outstanding now.
var (
	pdhDiskReads      = pdh.Counter{Object: "PhysicalDisk", Name: "Disk Reads/sec"}
	pdhDiskWrites     = pdh.Counter{Object: "PhysicalDisk", Name: "Disk Writes/sec"}
	pdhDiskReadBytes  = pdh.Counter{Object: "PhysicalDisk", Name: "Disk Read Bytes/sec"}
	pdhDiskWriteBytes = pdh.Counter{Object: "PhysicalDisk", Name: "Disk Write Bytes/sec"}
	pdhDiskSecRead    = pdh.Counter{Object: "PhysicalDisk", Name: "Avg. Disk sec/Read"}
	pdhDiskSecWrite   = pdh.Counter{Object: "PhysicalDisk", Name: "Avg. Disk sec/Write"}
	pdhDiskIdle       = pdh.Counter{Object: "PhysicalDisk", Name: "% Idle Time"}
	pdhDiskQueueTime  = pdh.Counter{Object: "PhysicalDisk", Name: "Avg. Disk Queue Length"}
	pdhDiskQueueNow   = pdh.Counter{Object: "PhysicalDisk", Name: "Current Disk Queue Length"}
	pdhDiskSplits     = pdh.Counter{Object: "PhysicalDisk", Name: "Split IO/Sec"}
)

// pdhDiskSpecs is the query the Windows source opens: every counter for every disk.
func pdhDiskSpecs() []pdh.Spec {
	var specs []pdh.Spec
	for _, c := range []pdh.Counter{pdhDiskReads, pdhDiskWrites, pdhDiskReadBytes, pdhDiskWriteBytes,
		pdhDiskSecRead, pdhDiskSecWrite, pdhDiskIdle, pdhDiskQueueTime, pdhDiskQueueNow, pdhDiskSplits} {
		specs = append(specs, pdh.Spec{Counter: c, Instanced: true})
	}
	return specs
}

// hundredNsPerMs converts the 100 ns units of the precision and queue-length counters.
const hundredNsPerMs = 10_000

// defaultTimeBase is the 10 MHz performance-counter frequency of Windows 10 / Server 2016 and
// later, used only if PDH did not give the counter's time base.
const defaultTimeBase = 10_000_000

// diskSamplesFromPDH turns one PDH snapshot into the cumulative counters diskstats diffs. Disks
// are named PhysicalDrive<N> from the instance ("0 C: D:"): the number is stable while drive
// letters come and go. _Total is skipped. A disk missing a counter it needs is skipped and named
// in the error only when no disk is complete, so one odd disk never hides the others.
func diskSamplesFromPDH(s pdh.Snapshot) ([]diskSample, error) {
	var samples []diskSample
	var incomplete []string
	for _, instance := range s.Instances(pdhDiskReads) {
		if instance == "_Total" {
			continue
		}
		c, ok := diskCountersFromPDH(s, instance)
		if !ok {
			incomplete = append(incomplete, instance)
			continue
		}
		samples = append(samples, diskSample{Device: physicalDriveName(instance), diskCounters: c})
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i].Device < samples[j].Device })
	if len(samples) == 0 && len(incomplete) > 0 {
		sort.Strings(incomplete)
		return nil, fmt.Errorf("diskstats: \\PhysicalDisk counters incomplete for %s", strings.Join(incomplete, ", "))
	}
	return samples, nil
}

func diskCountersFromPDH(s pdh.Snapshot, instance string) (diskCounters, bool) {
	ok := true
	get := func(c pdh.Counter) pdh.Raw {
		v, found := s.Get(c, instance)
		if !found || v.First < 0 || v.Second < 0 {
			ok = false
		}
		return v
	}
	reads, writes := get(pdhDiskReads), get(pdhDiskWrites)
	readBytes, writeBytes := get(pdhDiskReadBytes), get(pdhDiskWriteBytes)
	secRead, secWrite := get(pdhDiskSecRead), get(pdhDiskSecWrite)
	idle, queueTime, queueNow := get(pdhDiskIdle), get(pdhDiskQueueTime), get(pdhDiskQueueNow)
	if !ok || idle.Second < idle.First {
		return diskCounters{}, false
	}
	c := diskCounters{
		ReadOps: uint64(reads.First), WriteOps: uint64(writes.First),
		// Windows transfers whole 512-byte sectors at least, so the division loses nothing.
		ReadSectors: uint64(readBytes.First) / bytesPerSector, WriteSectors: uint64(writeBytes.First) / bytesPerSector,
		ReadTimeMs:       ticksToMs(secRead.First, timeBase(s, pdhDiskSecRead)),
		WriteTimeMs:      ticksToMs(secWrite.First, timeBase(s, pdhDiskSecWrite)),
		IOTimeMs:         uint64(idle.Second-idle.First) / hundredNsPerMs,
		WeightedIOTimeMs: uint64(queueTime.First) / hundredNsPerMs,
		InProgress:       uint64(queueNow.First),
		NoMerges:         true,
	}
	if splits, found := s.Get(pdhDiskSplits, instance); found && splits.First >= 0 {
		c.HasSplits, c.SplitOps = true, uint64(splits.First)
	}
	return c, true
}

func timeBase(s pdh.Snapshot, c pdh.Counter) int64 {
	if tb := s.TimeBase[c]; tb > 0 {
		return tb
	}
	return defaultTimeBase
}

// ticksToMs converts without overflowing for any cumulative value a disk can reach.
func ticksToMs(ticks, perSecond int64) uint64 {
	return uint64(ticks/perSecond)*1000 + uint64(ticks%perSecond)*1000/uint64(perSecond)
}

// physicalDriveName maps "0 C: D:" to "PhysicalDrive0" (\\.\PhysicalDrive0 is the disk's
// device path); an instance not starting with a disk number keeps its name.
func physicalDriveName(instance string) string {
	number, _, _ := strings.Cut(instance, " ")
	if _, err := strconv.ParseUint(number, 10, 32); err != nil {
		return instance
	}
	return "PhysicalDrive" + number
}
