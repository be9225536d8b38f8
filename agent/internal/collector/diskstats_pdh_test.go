package collector

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/pdh"
)

// These tests stand in for a Windows machine (none is available here): the Windows source is
// pdh.Query.Collect, and what it returns is fed from fixture files through the same mapping.

func readPDHFixture(t *testing.T, name string) pdh.Snapshot {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "windows", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := pdh.ParseFixture(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDiskstatsFromPDHGolden(t *testing.T) {
	snapshots := []string{"pdh-disk-tick1", "pdh-disk-tick2"}
	next := 0
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	c := &diskstatsCollector{logger: discardLogger(), now: func() time.Time { return now },
		read: func() ([]diskSample, error) {
			s := readPDHFixture(t, snapshots[next])
			next++
			return diskSamplesFromPDH(s)
		}}
	if err := c.Collect(context.Background(), newRecordingSink()); !errors.Is(err, ErrNoData) {
		t.Fatalf("first tick: want ErrNoData (baseline), got %v", err)
	}
	now = now.Add(10 * time.Second)
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	// PhysicalDrive0 and the idle PhysicalDrive1; not PhysicalDrive2 (appeared: baseline only),
	// not _Total; no merge counts (Windows has none: not measured, not 0); split I/Os per disk.
	checkGolden(t, "windows/pdh-disk-tick2.golden", sink.render())

	// Worked by hand from the fixtures, so the golden file cannot drift unnoticed: 600 reads of
	// 40 KiB taking 3 s, 500 writes taking 0.8 s, 3 s idle of 10 s, 15 s of queue × time.
	got := c.DiskRates()[0]
	want := DiskRates{Device: "PhysicalDrive0", IntervalSeconds: 10, ReadIOPS: 60, WriteIOPS: 50,
		ReadMBps: 2.4576, WriteMBps: 2.048, ReadLatencyMs: 5, WriteLatencyMs: 1.6,
		QueueDepth: 1.5, UtilisationPercent: 70, InProgress: 3}
	if got != want {
		t.Fatalf("PhysicalDrive0 rates\n got %+v\nwant %+v", got, want)
	}
	if strings.Contains(sink.render(), "system.disk.merged") {
		t.Fatal("merge counts sent for Windows disks, which count none")
	}
}

func TestDiskSamplesFromPDHIncomplete(t *testing.T) {
	s := readPDHFixture(t, "pdh-disk-tick1")
	delete(s.Values[pdhDiskIdle], "0 C:")
	delete(s.Values[pdhDiskIdle], "1 D: E:")
	_, err := diskSamplesFromPDH(s)
	if err == nil || !strings.Contains(err.Error(), "0 C:, 1 D: E:") {
		t.Fatalf("want an error naming the incomplete disks, got %v", err)
	}
	delete(s.Values[pdhDiskReads], "0 C:")
	s.Values[pdhDiskIdle]["1 D: E:"] = pdh.Raw{First: 5, Second: 10}
	got, err := diskSamplesFromPDH(s)
	if err != nil || len(got) != 1 || got[0].Device != "PhysicalDrive1" {
		t.Fatalf("one complete disk must still be reported, got %+v, %v", got, err)
	}
}

func TestTicksToMs(t *testing.T) {
	cases := []struct {
		ticks, perSecond int64
		want             uint64
	}{
		{30_000_000, 10_000_000, 3000},
		{7_159_090, 3_579_545, 2000}, // the ACPI PM timer's frequency on older machines
		{1 << 62, 10_000_000, 461168601842738},
	}
	for _, tc := range cases {
		if got := ticksToMs(tc.ticks, tc.perSecond); got != tc.want {
			t.Errorf("ticksToMs(%d, %d) = %d, want %d", tc.ticks, tc.perSecond, got, tc.want)
		}
	}
}

func TestPhysicalDriveName(t *testing.T) {
	for instance, want := range map[string]string{"0 C:": "PhysicalDrive0", "12": "PhysicalDrive12",
		"3 E: F:": "PhysicalDrive3", "HarddiskVolume1": "HarddiskVolume1"} {
		if got := physicalDriveName(instance); got != want {
			t.Errorf("physicalDriveName(%q) = %q, want %q", instance, got, want)
		}
	}
}
