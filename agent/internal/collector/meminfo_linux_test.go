package collector

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMeminfoGolden(t *testing.T) {
	c, _ := newMeminfoCollector(Options{ProcPath: "testdata/proc-meminfo"})
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "meminfo.golden", sink.render())
	// By hand: SwapTotal 4194304 kB - SwapFree 3145728 kB = 1 GiB used.
	if got := sink.series["gauge system.paging.usage[By]{system.paging.state=used}"]; got != "1073741824" {
		t.Errorf("swap used = %s, want 1073741824", got)
	}
}

func TestMeminfoWithoutMemAvailable(t *testing.T) {
	proc := t.TempDir()
	old := "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 10 kB\nCached: 200 kB\nDirty: 1 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"
	if err := os.WriteFile(filepath.Join(proc, "meminfo"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := newMeminfoCollector(Options{ProcPath: proc})
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	if got := sink.series["gauge system.memory.linux.available[By]{}"]; got != "317440" {
		t.Errorf("available = %s, want (100+10+200) KiB = 317440", got)
	}
}

func TestMeminfoMissingFields(t *testing.T) {
	proc := t.TempDir()
	if err := os.WriteFile(filepath.Join(proc, "meminfo"), []byte("MemTotal: 1000 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := newMeminfoCollector(Options{ProcPath: proc})
	err := c.Collect(context.Background(), newRecordingSink())
	if err == nil || errors.Is(err, ErrUnsupported) {
		t.Fatalf("want an error listing the missing fields, got %v", err)
	}
}
