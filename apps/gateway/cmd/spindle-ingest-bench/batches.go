package main

import (
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/otlpfixture"
)

// The agent-shaped batch of issue 12: 4 devices of disk I/O, memory, and 8 latency histograms
// (read and write of each device), one 10 s interval. Its rows: 4 disk_io, 1 memory,
// 8 disk_latency.
const (
	devicesPerBatch  = 4
	batchInterval    = 10 * time.Second
	histogramBuckets = 28
)

// batchShape counts what one batch carries, for the report's per-second figures.
type batchShape struct {
	Points, Rows, Values int
}

// shape is fixed by buildBatch; columns are those the store copies per table (disk_io 16,
// memory 11, disk_latency 8 + 28 buckets).
var shape = batchShape{
	Points: devicesPerBatch*11 + 8 + devicesPerBatch*2,
	Rows:   devicesPerBatch + 1 + devicesPerBatch*2,
	Values: devicesPerBatch*16 + 11 + devicesPerBatch*2*(8+histogramBuckets),
}

// buildBatch returns the protobuf body of batch seq of one agent. Counter values vary with seq
// so no two batches are byte-identical, as an agent's are not.
func buildBatch(hostname string, seq int64, start time.Time) ([]byte, error) {
	end := start.Add(batchInterval)
	s := otlpfixture.Sample{Seq: seq, Start: start, End: end,
		Attributes: map[string]string{"host.name": hostname},
		Memory: &otlpfixture.Memory{Limit: 16 << 30, Available: 8 << 30, Free: 2 << 30, Cached: 5 << 30,
			Buffers: 256 << 20, Dirty: seq % 4096 << 10, SwapUsed: 0, SwapFree: 2 << 30}}
	deep := otlpfixture.Deep{}
	for d := 0; d < devicesPerBatch; d++ {
		device := fmt.Sprintf("nvme%dn1", d)
		n := seq%1000 + int64(d)
		s.Disks = append(s.Disks, otlpfixture.Disk{Device: device, ReadOps: 100 + n, WriteOps: 50 + n,
			ReadBytes: (100 + n) * 4096, WriteBytes: (50 + n) * 8192, ReadMerged: n % 7, WriteMerged: n % 5,
			ReadSeconds: 0.012, WriteSeconds: 0.031, IOSeconds: 0.4, WeightedIOSeconds: 0.9, InProgress: n % 3})
		for _, op := range []string{"read", "write"} {
			deep.Latency = append(deep.Latency, otlpfixture.Latency{Device: device, Operation: op,
				Counts: []uint64{0, 0, 0, 0, 3, 20, 40 + uint64(n), 30, 10, 2}, SumSeconds: float64(105+n) * 64e-6})
		}
	}
	md := otlpfixture.Build(s)
	otlpfixture.AddDeep(md, 0, s, deep)
	return (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
}
