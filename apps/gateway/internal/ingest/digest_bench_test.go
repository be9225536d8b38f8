package ingest

import (
	"crypto/sha256"
	"encoding/json"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// BenchmarkDecodeAndMapAgentBatch is the gateway's per-export CPU before the database: decode and
// map one agent-shaped batch (4 devices of disk I/O, memory, 8 latency histograms), as the
// ingest benchmark (cmd/spindle-ingest-bench) sends.
func BenchmarkDecodeAndMapAgentBatch(b *testing.B) {
	body := agentBatch()
	b.ReportAllocs()
	for b.Loop() {
		metrics, err := Decode(body, Protobuf)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Map(metrics); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDigestAgentBatch compares the digest with the JSON form it replaced.
func BenchmarkDigestAgentBatch(b *testing.B) {
	metrics, err := Decode(agentBatch(), Protobuf)
	if err != nil {
		b.Fatal(err)
	}
	request, err := Map(metrics)
	if err != nil {
		b.Fatal(err)
	}
	batch := request.Batches[0]
	b.Run("binary", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			digest(batch)
		}
	})
	b.Run("json-former", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			encoded, _ := json.Marshal(batch)
			sha256.Sum256(encoded)
		}
	})
}

// agentBatch is the ingest benchmark's batch, encoded.
func agentBatch() []byte {
	end := time.Now().Truncate(time.Second)
	s := otlpfixture.Sample{Seq: 7, Start: end.Add(-10 * time.Second), End: end, Attributes: map[string]string{"host.name": "bench"},
		Memory: &otlpfixture.Memory{Limit: 16 << 30, Available: 8 << 30, Free: 2 << 30, Cached: 5 << 30, Buffers: 256 << 20, Dirty: 1 << 20, SwapFree: 2 << 30}}
	deep := otlpfixture.Deep{}
	for _, device := range []string{"nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"} {
		s.Disks = append(s.Disks, otlpfixture.Disk{Device: device, ReadOps: 100, WriteOps: 50, ReadBytes: 409600, WriteBytes: 409600,
			ReadMerged: 3, WriteMerged: 2, ReadSeconds: 0.012, WriteSeconds: 0.031, IOSeconds: 0.4, WeightedIOSeconds: 0.9, InProgress: 1})
		for _, op := range []string{"read", "write"} {
			deep.Latency = append(deep.Latency, otlpfixture.Latency{Device: device, Operation: op,
				Counts: []uint64{0, 0, 0, 0, 3, 20, 40, 30, 10, 2}, SumSeconds: 0.0067})
		}
	}
	md := otlpfixture.Build(s)
	otlpfixture.AddDeep(md, 0, s, deep)
	return otlpfixture.Proto(md)
}
