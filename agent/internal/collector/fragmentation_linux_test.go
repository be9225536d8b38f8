package collector

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
)

// firstScan collects until the background scanner has completed a pass.
func firstScan(t *testing.T, c Collector) (*recordingSink, error) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sink := newRecordingSink()
		err := c.Collect(context.Background(), sink)
		if errors.Is(err, ErrNoData) && strings.Contains(err.Error(), "still running") {
			continue
		}
		return sink, err
	}
	t.Fatal("the first scan did not finish in 20 s")
	return nil, nil
}

func TestFragmentationReportsTheLastScanAsFilefragCounts(t *testing.T) {
	fiemaptest.NeedTool(t, "filefrag")
	root := fiemaptest.MountExt4(t, 64<<20)
	files := fiemaptest.Paths(root, "seg", 4)
	fiemaptest.Interleave(t, files, 60, 8<<10)

	c, err := newFragmentationCollector(Options{Fragmentation: FragmentationOptions{
		Paths: []string{root}, Period: time.Hour, MaxFilesPerSecond: 1000, WorstFiles: 2, NoDetection: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sink, err := firstScan(t, c)
	if err != nil {
		t.Fatal(err)
	}

	var extents, fragmented, excess int
	byPath := map[string]int{}
	for _, f := range files {
		n := fiemaptest.Filefrag(t, f)
		byPath[f] = n
		extents += n
		if n > 1 {
			fragmented++
			excess += n - 1
		}
	}
	rootAttr := "{spindle.scan.root=" + root + "}"
	for series, want := range map[string]int{
		"gauge spindle.fragmentation.files[{file}]":             len(files),
		"gauge spindle.fragmentation.extents[{extent}]":         extents,
		"gauge spindle.fragmentation.fragmented_files[{file}]":  fragmented,
		"gauge spindle.fragmentation.excess_extents[{extent}]":  excess,
		"gauge spindle.fragmentation.unsupported_files[{file}]": 0,
	} {
		if got := sink.series[series+rootAttr]; got != strconv.Itoa(want) {
			t.Errorf("%s = %q, want %d (filefrag %v)", series, got, want, byPath)
		}
	}
	if _, ok := sink.series["gauge spindle.fragmentation.scan_duration[s]"+rootAttr]; !ok {
		t.Error("scan_duration missing")
	}
	worst := 0
	for key, value := range sink.series {
		if !strings.HasPrefix(key, "gauge spindle.fragmentation.file.extents[{extent}]") {
			continue
		}
		worst++
		path := key[strings.Index(key, "file.path=")+len("file.path=") : strings.Index(key, ",file.size=")]
		if value != strconv.Itoa(byPath[path]) || !strings.Contains(key, "file.size="+strconv.Itoa(60*8<<10)) {
			t.Errorf("%s %s: filefrag says %d", key, value, byPath[path])
		}
	}
	if worst != 2 {
		t.Errorf("%d worst files reported, want worst_files 2:\n%s", worst, sink.render())
	}

	// Every tick reports the same complete scan until the next one.
	again := newRecordingSink()
	if err := c.Collect(context.Background(), again); err != nil || again.render() != sink.render() {
		t.Fatalf("second tick differs (%v):\n%s", err, again.render())
	}
}

func TestFragmentationFindsAPostgreSQLDataDirectory(t *testing.T) {
	search := t.TempDir()
	data := filepath.Join(search, "var/lib/postgresql/15/main")
	if err := os.MkdirAll(filepath.Join(data, "base/5"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"PG_VERSION": "15\n", "base/5/1259": "relation", "base/5/1259_fsm": "fsm"} {
		if err := os.WriteFile(filepath.Join(data, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := newFragmentationCollector(Options{Fragmentation: FragmentationOptions{
		Period: time.Hour, MaxFilesPerSecond: 1000, WorstFiles: 10, SearchRoot: search}})
	defer c.Close()
	sink, err := firstScan(t, c)
	if err != nil {
		t.Fatal(err)
	}
	resolved, _ := filepath.EvalSymlinks(data)
	key := "gauge spindle.fragmentation.files[{file}]{spindle.scan.root=" + resolved + "}"
	files, _ := strconv.Atoi(sink.series[key])
	unsupported, _ := strconv.Atoi(sink.series["gauge spindle.fragmentation.unsupported_files[{file}]{spindle.scan.root="+resolved+"}"])
	if files+unsupported != 3 { // t.TempDir may be on tmpfs, which has no FIEMAP
		t.Fatalf("the data directory's 3 files were not all seen:\n%s", sink.render())
	}
}

func TestFragmentationWithNothingToScanHasNoData(t *testing.T) {
	c, _ := newFragmentationCollector(Options{Fragmentation: FragmentationOptions{Period: time.Hour, SearchRoot: t.TempDir()}})
	defer c.Close()
	_, err := firstScan(t, c)
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "nothing to scan") {
		t.Fatalf("%v, want ErrNoData saying there is nothing to scan", err)
	}
	missing, _ := newFragmentationCollector(Options{Fragmentation: FragmentationOptions{
		Paths: []string{"/nonexistent/spindle"}, Period: time.Hour, NoDetection: true}})
	defer missing.Close()
	if _, err := firstScan(t, missing); err == nil || errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "fragmentation.paths") {
		t.Fatalf("a configured path that does not exist must be an error naming the setting, got %v", err)
	}
}

func TestFragmentationCloseStopsAScanInProgress(t *testing.T) {
	dir := t.TempDir()
	for _, p := range fiemaptest.Paths(dir, "f", 100) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := newFragmentationCollector(Options{Fragmentation: FragmentationOptions{
		Paths: []string{dir}, Period: time.Hour, MaxFilesPerSecond: 5, NoDetection: true}})
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("Close took %v while a 20 s scan ran", took)
	}
}
