package collector

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
)

// TestMRCCollectorRecordsCurves builds the mrc collector as the agent does, with a window
// shorter than a tick, drives page-cache reads of a read-cache scope's file and block I/O on a
// loop device, and waits for a Collect that records a page-cache, a read-cache and a block
// curve, each with its basis.
func TestMRCCollectorRecordsCurves(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 64<<20)
	dir := t.TempDir()
	path := filepath.Join(dir, "table")
	if err := os.WriteFile(path, make([]byte, 32<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	built, err := Build([]string{"mrc"}, Options{ProcPath: "/proc", SysPath: "/sys", Logger: discardLogger(),
		EBPF: EBPFOptions{Mode: EBPFOn, MRCWindow: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	runner := NewRunner(built, discardLogger())
	defer runner.Close()
	scope := filepath.Join(dir, "*")
	built[0].Collector.(ReadCacheScopes).UseReadCacheScopes(func() map[string]string { return map[string]string{path: scope} })

	buf := bpftest.AlignedBuffer(t, 1<<20)
	want := []string{
		"gauge spindle.cache.mrc.sample_rate[1]{spindle.mrc.curve=page_cache,spindle.mrc.scope=}",
		"gauge spindle.cache.mrc.sample_rate[1]{spindle.mrc.curve=read_cache,spindle.mrc.scope=" + scope + "}",
		"gauge spindle.cache.mrc.sample_rate[1]{spindle.mrc.curve=block,spindle.mrc.scope=" + loop.Name + "}",
	}
	for {
		for range 4 { // two passes over the file and the device: every sampled key is reused
			readAll(t, path)
			loop.WriteDirect(t, buf, 0, 32)
		}
		sink := newRecordingSink()
		for _, r := range runner.Collect(context.Background(), sink) {
			if r.State != StateOK {
				t.Fatalf("collector %s: %s %v", r.Name, r.State, r.Err)
			}
		}
		missing := 0
		for _, key := range want {
			if _, ok := sink.series[key]; !ok {
				missing++
			}
		}
		if missing > 0 {
			continue // the kernel hands samples over asynchronously; the next window will have them
		}
		checkCurve(t, sink, "read_cache", scope)
		checkCurve(t, sink, "block", loop.Name)
		return
	}
}

// checkCurve finds the curve's points and its basis: hit ratios in [0, 1], sizes present, the
// window and the sampled accesses recorded.
func checkCurve(t *testing.T, sink *recordingSink, curve, scope string) {
	t.Helper()
	attrs := "spindle.mrc.curve=" + curve + ",spindle.mrc.scope=" + scope
	points := 0
	for key, value := range sink.series {
		if strings.HasPrefix(key, "gauge spindle.cache.mrc.hit_ratio[1]{"+attrs+",spindle.mrc.size_bytes=") {
			points++
			if v, err := strconv.ParseFloat(value, 64); err != nil || v < 0 || v > 1 {
				t.Errorf("%s = %s, not a ratio", key, value)
			}
		}
	}
	if points == 0 {
		t.Errorf("no hit-ratio points for %s\n%s", attrs, sink.render())
	}
	for _, key := range []string{
		"gauge spindle.cache.mrc.sampled_accesses[{access}]{" + attrs + "}",
		"gauge spindle.cache.mrc.window[s]{" + attrs + "}",
	} {
		if _, ok := sink.series[key]; !ok {
			t.Errorf("%s not recorded", key)
		}
	}
}

func readAll(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
}
