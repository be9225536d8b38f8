package ingest

import (
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/otlpfixture"
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
