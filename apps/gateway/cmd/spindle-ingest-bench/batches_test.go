package main

import (
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

func mapped(t *testing.T, body []byte) telemetry.Batch {
	t.Helper()
	md, err := ingest.Decode(body, ingest.Protobuf)
	if err != nil {
		t.Fatal(err)
	}
	request, err := ingest.Map(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(request.Batches) != 1 {
		t.Fatalf("%d batches, want 1", len(request.Batches))
	}
	return request.Batches[0]
}

// A rendered batch is the built batch of that sequence but for the counters' values: the same
// sequence, times, devices and rows, across a change of the sequence's varint width.
func TestRenderedBatchHasTheSequenceAndTimesOfTheBuiltOne(t *testing.T) {
	first := time.Now().Add(-24 * time.Hour).Truncate(time.Second)
	template, err := newTemplate("host-1", 120, first)
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int64{121, 127, 128, 129, 20_000} {
		body, err := template.render(seq)
		if err != nil {
			t.Fatal(err)
		}
		built, err := buildBatch("host-1", seq, first.Add(time.Duration(seq)*batchInterval))
		if err != nil {
			t.Fatal(err)
		}
		got, want := mapped(t, body), mapped(t, built)
		if got.Seq != want.Seq || got.Host != want.Host || len(got.DiskIO) != len(want.DiskIO) || len(got.Memory) != len(want.Memory) ||
			len(got.Deep.DiskLatency) != len(want.Deep.DiskLatency) {
			t.Fatalf("seq %d: rendered %+v, built %+v", seq, got, want)
		}
		for i := range want.DiskIO {
			if g, w := got.DiskIO[i], want.DiskIO[i]; !g.Time.Equal(w.Time) || g.Device != w.Device || g.IntervalSeconds != w.IntervalSeconds {
				t.Fatalf("seq %d disk row %d: rendered %+v, built %+v", seq, i, g, w)
			}
		}
		for i := range want.Deep.DiskLatency {
			if g, w := got.Deep.DiskLatency[i], want.Deep.DiskLatency[i]; !g.Time.Equal(w.Time) || g.IntervalSeconds != w.IntervalSeconds {
				t.Fatalf("seq %d latency row %d: rendered %+v, built %+v", seq, i, g, w)
			}
		}
		if !got.Memory[0].Time.Equal(want.Memory[0].Time) {
			t.Fatalf("seq %d: memory at %s, want %s", seq, got.Memory[0].Time, want.Memory[0].Time)
		}
	}
	if template.rebuilds != 2 {
		t.Fatalf("%d templates built again, want 2 (at 128 and 20,000, where the varint grows)", template.rebuilds)
	}
}
