package collector

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixtureDiskstats builds the diskstats collector over a temp /proc (into which each tick's
// snapshot is copied) and the fixture /sys tree, with a clock the test advances.
func fixtureDiskstats(t *testing.T) (c *diskstatsCollector, tick func(snapshot string) (*recordingSink, error)) {
	t.Helper()
	proc := t.TempDir()
	built, err := newDiskstatsCollector(Options{ProcPath: proc, SysPath: "testdata/sys", Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	c = built.(*diskstatsCollector)
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	tick = func(snapshot string) (*recordingSink, error) {
		data, err := os.ReadFile(filepath.Join("testdata", snapshot, "diskstats"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, "diskstats"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		sink := newRecordingSink()
		err = c.Collect(context.Background(), sink)
		now = now.Add(10 * time.Second)
		return sink, err
	}
	return c, tick
}

func TestDiskstatsFirstTickOnlySetsBaseline(t *testing.T) {
	c, tick := fixtureDiskstats(t)
	sink, err := tick("proc-tick1")
	if !errors.Is(err, ErrNoData) {
		t.Fatalf("first tick: want ErrNoData, got %v", err)
	}
	if len(sink.series) != 0 || len(c.DiskRates()) != 0 {
		t.Fatalf("first tick recorded %d series, want none", len(sink.series))
	}
}

func TestDiskstatsDeltasGolden(t *testing.T) {
	c, tick := fixtureDiskstats(t)
	if _, err := tick("proc-tick1"); !errors.Is(err, ErrNoData) {
		t.Fatal(err)
	}
	sink, err := tick("proc-tick2")
	if err != nil {
		t.Fatal(err)
	}
	// Golden: sda (write time wraps at 2^32 ms), nvme0n1, loop1 (idle but used before) and
	// cciss/c0d0; not partitions, not never-used loop0/ram0, not dm-0 (counters reset), not
	// sdb (appeared: baseline only), not sdc (disappeared).
	checkGolden(t, "diskstats-tick2.golden", sink.render())

	rates, err := json.MarshalIndent(c.DiskRates(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "diskstats-tick2-rates.golden.json", string(rates)+"\n")

	// Worked by hand from the fixtures, so the golden files cannot drift unnoticed.
	sda := c.DiskRates()[3]
	if sda.Device != "sda" {
		t.Fatalf("rates not sorted by device: %+v", c.DiskRates())
	}
	want := DiskRates{Device: "sda", IntervalSeconds: 10, ReadIOPS: 60, WriteIOPS: 50,
		ReadMBps: 2.4576, WriteMBps: 2.048, ReadLatencyMs: 5, WriteLatencyMs: 796.0 / 500,
		QueueDepth: 1.5, UtilisationPercent: 70, InProgress: 3}
	if !ratesClose(sda, want) {
		t.Errorf("sda rates\n got %+v\nwant %+v", sda, want)
	}
}

func TestDiskstatsDeviceReturnsAfterReset(t *testing.T) {
	c, tick := fixtureDiskstats(t)
	tick("proc-tick1")
	tick("proc-tick2") // dm-0 resets here and is re-baselined
	sink, err := tick("proc-tick2")
	if err != nil {
		t.Fatal(err)
	}
	key := `counter system.disk.operations[{operation}]{disk.io.direction=read,system.device=dm-0}`
	if got := sink.series[key]; got != "0" {
		t.Errorf("dm-0 after re-baseline: got %q, want 0 (a delta from its new baseline)", got)
	}
	if key := `counter system.disk.operations[{operation}]{disk.io.direction=read,system.device=sdb}`; sink.series[key] != "0" {
		t.Errorf("sdb should be reported from its second tick, got %q", sink.series[key])
	}
	if len(c.DiskRates()) != 6 {
		t.Errorf("want 6 devices (cciss/c0d0 dm-0 loop1 nvme0n1 sda sdb), got %+v", c.DiskRates())
	}
}

func TestDiskstatsMissingProcIsUnsupported(t *testing.T) {
	c, err := newDiskstatsCollector(Options{ProcPath: t.TempDir(), SysPath: "testdata/sys", Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Collect(context.Background(), newRecordingSink()); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("want ErrUnsupported, got %v", err)
	}
}

func TestDiskstatsMissingSysIsAnError(t *testing.T) {
	c, _ := newDiskstatsCollector(Options{ProcPath: "testdata/proc-tick1", SysPath: t.TempDir(), Logger: discardLogger()})
	err := c.Collect(context.Background(), newRecordingSink())
	if err == nil || errors.Is(err, ErrUnsupported) || errors.Is(err, ErrNoData) {
		t.Fatalf("want a plain error naming sys_path, got %v", err)
	}
}

func ratesClose(a, b DiskRates) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return a.Device == b.Device && a.InProgress == b.InProgress && near(a.IntervalSeconds, b.IntervalSeconds) &&
		near(a.ReadIOPS, b.ReadIOPS) && near(a.WriteIOPS, b.WriteIOPS) && near(a.ReadMBps, b.ReadMBps) &&
		near(a.WriteMBps, b.WriteMBps) && near(a.ReadLatencyMs, b.ReadLatencyMs) &&
		near(a.WriteLatencyMs, b.WriteLatencyMs) && near(a.QueueDepth, b.QueueDepth) &&
		near(a.UtilisationPercent, b.UtilisationPercent)
}
