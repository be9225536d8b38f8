package ingest

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// FuzzDecodeAndMap feeds arbitrary bodies through what /v1/metrics does before writing:
// decode, bound, map. Nothing may panic, and a mapped request must respect the bounds.
// Seeds: testdata/fuzz/FuzzDecodeAndMap plus the fixtures below.
func FuzzDecodeAndMap(f *testing.F) {
	now := time.Now()
	sample := otlpfixture.Sample{Seq: 1, Start: now.Add(-time.Minute), End: now.Add(-50 * time.Second),
		Disks:  []otlpfixture.Disk{{Device: "sda", ReadOps: 1, WriteOps: 2, ReadBytes: 512, WriteBytes: 1024, IOSeconds: 0.1}},
		Memory: &otlpfixture.Memory{Limit: 1 << 30, Available: 1 << 29}}
	md := otlpfixture.Build(sample)
	f.Add(otlpfixture.Proto(md), false)
	f.Add(otlpfixture.JSON(md), true)
	// The agent's usual batch: disk I/O, memory and latency histograms (the ingest benchmark's shape).
	withLatency := otlpfixture.Build(sample)
	otlpfixture.AddDeep(withLatency, 0, sample, otlpfixture.Deep{Latency: []otlpfixture.Latency{
		{Device: "sda", Operation: "read", Counts: []uint64{0, 3, 20, 4}, SumSeconds: 0.002},
		{Device: "sda", Operation: "flush", Counts: []uint64{1}, SumSeconds: 0.0001}}})
	f.Add(otlpfixture.Proto(withLatency), false)
	f.Add([]byte(`{"resourceMetrics":[{"resource":{},"scopeMetrics":[]}]}`), true)
	scrape := otlpfixture.Scrape{Start: now.Add(-time.Hour), Time: now.Add(-time.Minute),
		Disks:  []otlpfixture.HostDisk{{Device: "sda", ReadBytes: 4096, ReadOps: 1, IOSeconds: 0.5, PendingOperations: 1}},
		Memory: &otlpfixture.HostMemory{Free: 1 << 20, Limit: 1 << 30}, Swap: []otlpfixture.HostSwap{{Device: "/swap", Used: 1, Free: 2}}}
	f.Add(otlpfixture.Proto(otlpfixture.BuildHostmetrics(scrape)), false)
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		enc := Protobuf
		if asJSON {
			enc = JSON
		}
		metrics, err := Decode(body, enc)
		if err != nil {
			return
		}
		bounds := Bounds{MaxAge: time.Hour, MaxAhead: time.Minute, MaxTimestamps: 100, MaxDevices: 8}
		if CheckBounds(metrics, bounds, now) != nil {
			return
		}
		if IsSourceExport(metrics) {
			// A Collector source: plan, then apply against no stored series: nothing may panic.
			plan, err := PlanSource(metrics)
			if err != nil {
				return
			}
			if _, err := plan.Apply(nil); err != nil {
				return
			}
			return
		}
		request, err := Map(metrics)
		if err != nil {
			return
		}
		sameDigestsAsJSON(t, pdataDecode(t, body, enc), enc, request)
		earliest, latest := now.Add(-bounds.MaxAge), now.Add(bounds.MaxAhead)
		for _, batch := range request.Batches {
			for _, row := range batch.DiskIO {
				if row.Time.Before(earliest) || row.Time.After(latest) {
					t.Fatalf("a row at %s passed the bounds [%s, %s]", row.Time, earliest, latest)
				}
			}
		}
	})
}

// pdataDecode is the export as pdata decodes it, which Decode must have accepted too.
func pdataDecode(t *testing.T, body []byte, enc Encoding) pmetric.Metrics {
	t.Helper()
	request := pmetricotlp.NewExportRequest()
	var err error
	if enc == JSON {
		err = request.UnmarshalJSON(body)
	} else {
		err = request.UnmarshalProto(body)
	}
	if err != nil {
		t.Fatalf("Decode accepted a body pdata refuses: %v", err)
	}
	return request.Metrics()
}

// sameDigestsAsJSON encodes the decoded export in the other encoding, maps it again and holds
// the digest to what it replaced: two batches have the same digest exactly when their JSON (the
// digest's former input) is the same. A re-encoded export stores the same rows, so both agree
// that it is the same batch; the digest must not tell it apart, nor confuse it with another.
func sameDigestsAsJSON(t *testing.T, metrics pmetric.Metrics, enc Encoding, request Request) {
	t.Helper()
	var other []byte
	var err error
	otherEnc := JSON
	if enc == JSON {
		otherEnc = Protobuf
		other, err = (&pmetric.ProtoMarshaler{}).MarshalMetrics(metrics)
	} else {
		other, err = (&pmetric.JSONMarshaler{}).MarshalMetrics(metrics)
	}
	if err != nil {
		return
	}
	again, err := Decode(other, otherEnc)
	if err != nil {
		return
	}
	mapped, err := Map(again)
	if err != nil || len(mapped.Batches) != len(request.Batches) {
		return // JSON cannot carry every value protobuf can (NaN): not the digest's concern
	}
	encode := func(b telemetry.Batch) []byte {
		b.Digest = [32]byte{}
		encoded, _ := json.Marshal(b)
		return encoded
	}
	for i, a := range request.Batches {
		for j, b := range mapped.Batches {
			ja, jb := encode(a), encode(b)
			if ja == nil || jb == nil {
				continue
			}
			if sameJSON, sameDigest := bytes.Equal(ja, jb), a.Digest == b.Digest; sameJSON != sameDigest {
				t.Fatalf("batch %d as sent and batch %d re-encoded: same JSON %v, same digest %v", i, j, sameJSON, sameDigest)
			}
		}
	}
}
