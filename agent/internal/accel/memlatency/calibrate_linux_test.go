package memlatency

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCalibrateMeasuresAPlausibleMemoryReadLatency(t *testing.T) {
	dir := t.TempDir()
	m, err := Calibrate(context.Background(), dir, Reads, time.Minute) // generous: this host is shared
	if err != nil {
		t.Fatal(err)
	}
	wantSamples := Reads - 2*204 // 5 % of 4096 is 204.8: 204 dropped at each end
	if m.Samples != wantSamples {
		t.Errorf("samples %d, want %d", m.Samples, wantSamples)
	}
	// A 4 KiB copy out of the page cache takes hundreds of nanoseconds to a few microseconds;
	// a millisecond would be a storage read.
	if m.Mean <= 0 || m.Mean >= time.Millisecond {
		t.Errorf("mean %v, want in (0, 1ms)", m.Mean)
	}
	t.Logf("memory-read latency %v over %d reads", m.Mean, m.Samples)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("calibration left %d files in the state directory", len(entries))
	}
}

func TestCalibrateNamesAStateDirectoryItCannotWrite(t *testing.T) {
	_, err := Calibrate(context.Background(), "/nonexistent/spindle-state", Reads, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/spindle-state") || !strings.Contains(err.Error(), "writable") {
		t.Fatalf("missing directory: %v; want an error naming it and what to check", err)
	}
}

func TestCalibratorHasNoMeasurementUntilOneSucceeds(t *testing.T) {
	c := &Calibrator{Dir: "/nonexistent/spindle-state", Period: time.Hour, Logger: slog.New(slog.DiscardHandler)}
	if err := c.calibrate(context.Background()); err == nil {
		t.Fatal("want the failure")
	}
	if _, ok := c.Latest(); ok {
		t.Fatal("a failed calibration must leave no measurement (never a zero)")
	}
	c.Dir = t.TempDir()
	if err := c.calibrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	first, ok := c.Latest()
	if !ok || first.Mean <= 0 {
		t.Fatalf("after a calibration: %+v, %v", first, ok)
	}
	c.Dir = "/nonexistent/spindle-state" // a later failure keeps the previous measurement
	_ = c.calibrate(context.Background())
	if again, ok := c.Latest(); !ok || again != first {
		t.Fatalf("after a failed recalibration: %+v, %v; want the previous %+v", again, ok, first)
	}
}

func TestCalibratorRunMeasuresAtStartAndStopsWithItsContext(t *testing.T) {
	c := &Calibrator{Dir: t.TempDir(), Period: time.Hour, Logger: slog.New(slog.DiscardHandler)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for {
		if _, ok := c.Latest(); ok {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestCalibrateGivesUpPastItsBudget(t *testing.T) {
	dir := t.TempDir()
	_, err := Calibrate(context.Background(), dir, Reads, time.Nanosecond)
	if err == nil || !strings.Contains(err.Error(), "too busy") {
		t.Fatalf("1 ns budget: %v; want the calibration discarded as too slow", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a discarded calibration left %d files behind", len(entries))
	}
}
