package export

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
)

func encodeSink(t *testing.T, s *sink) []byte {
	t.Helper()
	numbers, histograms := s.take()
	metrics, err := batchMetrics(numbers, histograms, time.Unix(1_700_000_000, 0), time.Unix(1_700_000_010, 0))
	if err != nil {
		t.Fatal(err)
	}
	body, err := encodeRequest(BaseResource(testHost, "1.2.3", "agent-1").Set(), metrics)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := gunzip(body)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestSameMeasurementsSameBytes records one set of measurements in two orders: the bytes sent
// must not depend on the order collectors happened to record in (the SDK's followed map
// order). Each gauge series is set once and float deltas are exact in binary, so both orders
// have the same values.
func TestSameMeasurementsSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var ms []measurement
	for i := range 800 {
		attrs := randomAttributes(r)
		switch i % 5 {
		case 0:
			v := r.Int64N(1000)
			ms = append(ms, func(s collector.Sink) { s.AddInt(catalogue.DiskOperations, v, attrs...) })
		case 1:
			v := float64(r.IntN(64)) * 0.25
			ms = append(ms, func(s collector.Sink) { s.AddFloat(catalogue.DiskIOTime, v, attrs...) })
		case 2:
			d := collector.HistogramDelta{BucketCounts: make([]uint64, catalogue.LatencyBucketCount), Sum: 0.5}
			d.BucketCounts[r.IntN(len(d.BucketCounts))] = 3
			ms = append(ms, func(s collector.Sink) { s.AddHistogram(catalogue.DiskIOLatency, d, attrs...) })
		case 3:
			series := append(attrs, attribute.Int("spindle.test.series", i))
			ms = append(ms, func(s collector.Sink) { s.SetInt(catalogue.MemoryUsage, int64(i), series...) })
		default:
			series, v := append(attrs, attribute.Int("spindle.test.series", i)), r.Float64()
			ms = append(ms, func(s collector.Sink) { s.SetFloat(catalogue.CacheMRCHitRatio, v, series...) })
		}
	}
	record := func(order []measurement) []byte {
		s := newSink(func(err error) { t.Error(err) })
		for _, m := range order {
			m(s)
		}
		return encodeSink(t, s)
	}
	inOrder := record(ms)
	reversed := append([]measurement(nil), ms...)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	if got := record(reversed); !bytes.Equal(inOrder, got) {
		t.Fatalf("the same measurements in another order encode differently (%d vs %d bytes)", len(inOrder), len(got))
	}
}

// TestConcurrentRecording has goroutines record while batches are taken, as collectors do
// beside the tick: every delta ends up in exactly one batch.
func TestConcurrentRecording(t *testing.T) {
	s := newSink(func(err error) { t.Error(err) })
	const writers, adds = 8, 2000
	devices := []string{"sda", "sdb", "sdc"}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range adds {
				dev := attribute.String(catalogue.AttrDevice, devices[i%len(devices)])
				s.AddInt(catalogue.DiskOperations, 1, dev)
				s.AddFloat(catalogue.DiskIOTime, 0.5, dev)
				s.SetInt(catalogue.DiskPendingOperations, int64(w), dev)
				d := collector.HistogramDelta{BucketCounts: make([]uint64, catalogue.LatencyBucketCount), Sum: 1}
				d.BucketCounts[i%len(d.BucketCounts)] = 1
				s.AddHistogram(catalogue.DiskIOLatency, d, dev)
			}
		}()
	}
	var ops, histogramCount int64
	var ioTime, histogramSum float64
	collect := func() {
		numbers, histograms := s.take()
		for key, st := range numbers {
			for _, p := range st.points {
				switch key.name {
				case catalogue.DiskOperations.Name:
					ops += p.asInt
				case catalogue.DiskIOTime.Name:
					ioTime += p.asDouble
				case catalogue.DiskPendingOperations.Name:
					if p.asInt < 0 || p.asInt >= writers {
						t.Errorf("gauge %d was never set", p.asInt)
					}
				}
			}
		}
		for _, p := range histograms {
			histogramCount += int64(p.count())
			histogramSum += p.sum
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		default:
			collect()
		}
	}
	collect()
	const want = writers * adds
	if ops != want || ioTime != want*0.5 || histogramCount != want || histogramSum != want {
		t.Fatalf("operations %d, io time %v, histogram count %d sum %v; want %d, %v, %d, %d", ops, ioTime, histogramCount, histogramSum, want, want*0.5, want, want)
	}
}
