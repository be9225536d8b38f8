package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
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

// batchTemplate is one agent's encoded batch with the places of its sequence number and
// interval times, so the next batch costs the load generator a copy and a few patched bytes
// instead of building and marshalling pdata: the generator shares the machine's cores with the
// gateway and PostgreSQL, and every cycle it spends is one they lack. The counters stay those of
// the batch the template was built from (the gateway's work does not depend on them).
type batchTemplate struct {
	body      []byte
	seqAt     int // offset of the spindle.batch.seq varint
	seqWidth  int // its encoded length: a seq of another length needs a new template
	startsAt  []int
	endsAt    []int
	rebuilds  int
	hostname  string
	firstTime time.Time
}

// Field tags of NumberDataPoint and HistogramDataPoint: start_time_unix_nano (2) and
// time_unix_nano (3), both fixed64.
const (
	startTimeTag = 2<<3 | 1
	timeTag      = 3<<3 | 1
)

// newTemplate builds the template from batch seq of hostname.
func newTemplate(hostname string, seq int64, firstTime time.Time) (*batchTemplate, error) {
	start := firstTime.Add(time.Duration(seq) * batchInterval)
	body, err := buildBatch(hostname, seq, start)
	if err != nil {
		return nil, err
	}
	t := &batchTemplate{body: body, hostname: hostname, firstTime: firstTime}
	// KeyValue{key (1): "spindle.batch.seq", value (2): AnyValue{int_value (3): varint}}; pdata
	// writes the value before the key.
	key := append([]byte{1<<3 | 2, byte(len(ingest.BatchSeqAttribute))}, ingest.BatchSeqAttribute...)
	width := protowire.SizeVarint(uint64(seq))
	at := bytes.Index(body, key)
	switch {
	case at >= width+3 && body[at-width-3] == 2<<3|2 && body[at-width-1] == 3<<3:
		t.seqAt = at - width
	case at >= 0 && at+len(key)+3 <= len(body) && body[at+len(key)] == 2<<3|2 && body[at+len(key)+2] == 3<<3:
		t.seqAt = at + len(key) + 3
	default:
		return nil, fmt.Errorf("template for %s: %s not found as an int attribute", hostname, ingest.BatchSeqAttribute)
	}
	got, n := protowire.ConsumeVarint(body[t.seqAt:])
	if n != width || int64(got) != seq {
		return nil, fmt.Errorf("template for %s: sequence %d not where expected", hostname, seq)
	}
	t.seqWidth = n
	t.startsAt = fixed64Offsets(body, startTimeTag, uint64(start.UnixNano()))
	t.endsAt = fixed64Offsets(body, timeTag, uint64(start.Add(batchInterval).UnixNano()))
	if len(t.endsAt) != shape.Points || len(t.startsAt) == 0 {
		return nil, fmt.Errorf("template for %s: %d point times found, want %d", hostname, len(t.endsAt), shape.Points)
	}
	return t, nil
}

// fixed64Offsets returns the offsets of value's 8 bytes wherever they follow tag.
func fixed64Offsets(body []byte, tag byte, value uint64) []int {
	needle := binary.LittleEndian.AppendUint64([]byte{tag}, value)
	var offsets []int
	for from := 0; ; {
		i := bytes.Index(body[from:], needle)
		if i < 0 {
			return offsets
		}
		offsets = append(offsets, from+i+1)
		from += i + len(needle)
	}
}

// render returns batch seq: a copy of the template with the sequence and the interval's times
// patched in (a template of the right varint width is built first when the width changed).
func (t *batchTemplate) render(seq int64) ([]byte, error) {
	if protowire.SizeVarint(uint64(seq)) != t.seqWidth {
		fresh, err := newTemplate(t.hostname, seq, t.firstTime)
		if err != nil {
			return nil, err
		}
		fresh.rebuilds = t.rebuilds + 1
		*t = *fresh
	}
	body := bytes.Clone(t.body)
	protowire.AppendVarint(body[t.seqAt:t.seqAt], uint64(seq))
	start := t.firstTime.Add(time.Duration(seq) * batchInterval)
	for _, at := range t.startsAt {
		binary.LittleEndian.PutUint64(body[at:], uint64(start.UnixNano()))
	}
	for _, at := range t.endsAt {
		binary.LittleEndian.PutUint64(body[at:], uint64(start.Add(batchInterval).UnixNano()))
	}
	return body, nil
}
