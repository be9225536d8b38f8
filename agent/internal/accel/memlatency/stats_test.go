package memlatency

import (
	"testing"
	"time"
)

func TestTrimmedMeanDropsBothTails(t *testing.T) {
	// 20 samples, 5 % trimmed: one dropped at each end (1 ns and the 9 µs outlier); the 18 left
	// are 2 … 19 ns, whose sum is 189 and mean 10.5 ns → 10 ns in whole nanoseconds.
	samples := []time.Duration{9000}
	for ns := 19; ns >= 1; ns-- {
		samples = append(samples, time.Duration(ns))
	}
	mean, kept, err := TrimmedMean(samples, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if mean != 10 || kept != 18 {
		t.Fatalf("mean %v over %d samples, want 10ns over 18", mean, kept)
	}
}

func TestTrimmedMeanWithTooFewSamplesToTrimKeepsThemAll(t *testing.T) {
	// 19 × 0.05 = 0.95 → nothing dropped, the outlier included: all 19 are averaged.
	samples := make([]time.Duration, 19)
	for i := range samples {
		samples[i] = 100
	}
	samples[0] = 2000 // 18×100 + 2000 = 3800; /19 = 200
	mean, kept, err := TrimmedMean(samples, 0.05)
	if err != nil || mean != 200 || kept != 19 {
		t.Fatalf("got %v over %d (%v), want 200ns over 19", mean, kept, err)
	}
}

func TestTrimmedMeanRefusesNothingToAverage(t *testing.T) {
	if _, _, err := TrimmedMean(nil, 0.05); err == nil {
		t.Fatal("no samples: want an error, not a zero mean")
	}
	if _, _, err := TrimmedMean([]time.Duration{1, 2}, 0.5); err == nil {
		t.Fatal("trim 0.5: want an error")
	}
}
