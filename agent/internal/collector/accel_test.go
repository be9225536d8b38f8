package collector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel/memlatency"
	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/accel/writeopt"
)

// fakeFeatures stand in for the features: the collector only reads their Stats.
type fakeFeatures struct {
	readCache        readcache.Stats
	writeOpt         writeopt.Stats
	writeOptEnabled  bool
	readCacheCalls   int
	writeOptCalls    int
	withoutReadCache bool
}

func (f *fakeFeatures) sources() AccelSources {
	s := AccelSources{WriteOptimization: func() (writeopt.Stats, bool) {
		f.writeOptCalls++
		return f.writeOpt, f.writeOptEnabled
	}}
	if !f.withoutReadCache {
		s.ReadCache = func() readcache.Stats { f.readCacheCalls++; return f.readCache }
	}
	return s
}

func collectAccel(t *testing.T, c Collector) (map[string]string, error) {
	t.Helper()
	sink := newRecordingSink()
	err := c.Collect(context.Background(), sink)
	return sink.series, err
}

func TestAccelSendsGaugesAndDeltasOfTheFeaturesCounters(t *testing.T) {
	f := &fakeFeatures{}
	f.readCache = readcache.Stats{Enabled: true, BudgetBytes: 512 << 20, ResidentBytes: 96 << 20, PinnedBytes: 8 << 20,
		ManagedFiles: 12, MissBytes: 4096, PrefetchedBytes: 1 << 20, DroppedBehindBytes: 65536, BackoffEvents: 1,
		ResidencyMeasured: true}
	c := NewAccel(f.sources(), discardLogger())

	got, err := collectAccel(t, c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"gauge spindle.read_cache.budget[By]{}":            "536870912",
		"gauge spindle.read_cache.resident[By]{}":          "100663296",
		"gauge spindle.read_cache.pinned[By]{}":            "8388608",
		"gauge spindle.read_cache.managed_files[{file}]{}": "12",
		"counter spindle.read_cache.misses[By]{}":          "4096",
		"counter spindle.read_cache.prefetched[By]{}":      "1048576",
		"counter spindle.read_cache.dropped_behind[By]{}":  "65536",
		"counter spindle.read_cache.backoffs[{event}]{}":   "1",
	}
	checkSeries(t, "first tick (the features count from zero)", got, want)

	// Second tick: the counters grew; only the growth is sent. Hits now observed (eBPF).
	f.readCache.MissBytes, f.readCache.PrefetchedBytes, f.readCache.HitBytes, f.readCache.HitsObserved = 12288, 1<<20, 40960, true
	f.readCache.ResidentBytes = 100 << 20
	got, _ = collectAccel(t, c)
	want["counter spindle.read_cache.misses[By]{}"] = "8192"
	want["counter spindle.read_cache.prefetched[By]{}"] = "0"
	want["counter spindle.read_cache.dropped_behind[By]{}"] = "0"
	want["counter spindle.read_cache.backoffs[{event}]{}"] = "0"
	want["counter spindle.read_cache.hits[By]{}"] = "40960"
	want["gauge spindle.read_cache.resident[By]{}"] = "104857600"
	checkSeries(t, "second tick", got, want)
}

// Windows' read cache cannot measure residency: resident bytes, misses and bytes dropped behind
// scanners are not sent at all (not measured), never as 0; what it does measure still is.
func TestAccelSendsNoResidencyOrMissesWhereResidencyIsNotMeasured(t *testing.T) {
	f := &fakeFeatures{}
	f.readCache = readcache.Stats{Enabled: true, BudgetBytes: 64 << 20, PinnedBytes: 4 << 20, ManagedFiles: 3,
		PrefetchedBytes: 8 << 20}
	got, err := collectAccel(t, NewAccel(f.sources(), discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	checkSeries(t, "residency not measured", got, map[string]string{
		"gauge spindle.read_cache.budget[By]{}":            "67108864",
		"gauge spindle.read_cache.pinned[By]{}":            "4194304",
		"gauge spindle.read_cache.managed_files[{file}]{}": "3",
		"counter spindle.read_cache.prefetched[By]{}":      "8388608",
		"counter spindle.read_cache.backoffs[{event}]{}":   "0",
	})
}

func TestAccelSendsNothingForADisabledFeatureAndCountsOnlyWhatFollowsItsReturn(t *testing.T) {
	f := &fakeFeatures{writeOpt: writeopt.Stats{PreallocatedBytes: 64 << 20, TrimmedBytes: 8 << 20, Extents: map[string]int{}}}
	c := NewAccel(f.sources(), discardLogger())
	got, err := collectAccel(t, c)
	if !errors.Is(err, ErrNoData) || len(got) != 0 {
		t.Fatalf("both features off: %v, series %v; want no data and nothing sent", err, got)
	}
	if f.readCacheCalls != 1 || f.writeOptCalls != 1 {
		t.Fatalf("the collector must follow the counters while a feature is off (calls %d, %d)", f.readCacheCalls, f.writeOptCalls)
	}
	// Write optimisation switched on: what it did while off is not counted again.
	f.writeOptEnabled = true
	f.writeOpt.PreallocatedBytes += 128 << 20
	f.writeOpt.TrimmedBytes += 32 << 20
	f.writeOpt.FragmentsPrevented = 3
	got, err = collectAccel(t, c)
	if err != nil {
		t.Fatal(err)
	}
	checkSeries(t, "write optimisation on", got, map[string]string{
		"counter spindle.write_opt.preallocated[By]{}":              "134217728",
		"counter spindle.write_opt.trimmed[By]{}":                   "33554432",
		"counter spindle.write_opt.fragments_prevented[{extent}]{}": "3",
		"counter spindle.write_opt.files_defragmented[{file}]{}":    "0",
	})
}

func TestAccelSendsTheTwentyMostFragmentedManagedFiles(t *testing.T) {
	f := &fakeFeatures{withoutReadCache: true, writeOptEnabled: true, writeOpt: writeopt.Stats{Extents: map[string]int{}}}
	for i := range 30 {
		f.writeOpt.Extents[fmt.Sprintf("/srv/db/file%02d", i)] = i % 25 // 0..24, then 0..4 again
	}
	got, err := collectAccel(t, NewAccel(f.sources(), discardLogger()))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for series, value := range got {
		if path, ok := strings.CutPrefix(series, "gauge spindle.write_opt.managed_file.extents[{extent}]{file.path="); ok {
			files = append(files, strings.TrimSuffix(path, "}")+"="+value)
		}
	}
	if len(files) != MaxManagedFileExtents {
		t.Fatalf("%d files sent, want %d: %v", len(files), MaxManagedFileExtents, files)
	}
	// 24 … 5 extents are the 20 worst (file05 … file24); ties at 4 and below are left out.
	for i := 5; i <= 24; i++ {
		key := fmt.Sprintf("gauge spindle.write_opt.managed_file.extents[{extent}]{file.path=/srv/db/file%02d}", i)
		if got[key] != fmt.Sprint(i) {
			t.Errorf("%s = %q, want %d", key, got[key], i)
		}
	}
	// Ties go by path, so the same files are sent every tick.
	worst := mostFragmented(map[string]int{"/b": 3, "/a": 3, "/c": 3}, 2)
	if len(worst) != 2 || worst[0].path != "/a" || worst[1].path != "/b" {
		t.Fatalf("ties: %v", worst)
	}
}

func TestAccelSendsTheMemoryReadLatencyOnlyOnceMeasuredWhateverThePolicy(t *testing.T) {
	f := &fakeFeatures{withoutReadCache: true, writeOpt: writeopt.Stats{Extents: map[string]int{}}}
	var latest memlatency.Measurement
	measured := false
	sources := f.sources()
	sources.MemoryReadLatency = func() (memlatency.Measurement, bool) { return latest, measured }
	c := NewAccel(sources, discardLogger())

	got, err := collectAccel(t, c)
	if !errors.Is(err, ErrNoData) || len(got) != 0 {
		t.Fatalf("not measured yet: %v, series %v; want no data (never a zero latency)", err, got)
	}
	latest, measured = memlatency.Measurement{Mean: 850 * time.Nanosecond, Samples: 3688, At: time.Now()}, true
	for tick := range 2 { // the latest measurement is sent every tick, not once
		got, err = collectAccel(t, c)
		if err != nil {
			t.Fatal(err)
		}
		checkSeries(t, fmt.Sprint("measured, no feature enabled, tick ", tick), got, map[string]string{
			"gauge spindle.read_cache.memory_read_latency[s]{}":              "8.5e-07",
			"gauge spindle.read_cache.memory_read_latency.samples[{read}]{}": "3688",
		})
	}
}

func checkSeries(t *testing.T, when string, got, want map[string]string) {
	t.Helper()
	for series, value := range want {
		if got[series] != value {
			t.Errorf("%s: %s = %q, want %q", when, series, got[series], value)
		}
	}
	for series := range got {
		if _, ok := want[series]; !ok {
			t.Errorf("%s: unexpected series %s = %s", when, series, got[series])
		}
	}
}

func TestAccelSendsTheComparisonGroupOnlyWhileDirectoriesAreWatched(t *testing.T) {
	f := &fakeFeatures{withoutReadCache: true, writeOptEnabled: true, writeOpt: writeopt.Stats{Extents: map[string]int{},
		ManagedGrownBytes: 1 << 20, ManagedExtentsAdded: 2, UnmanagedGrownBytes: 3 << 20, UnmanagedExtentsAdded: 40}}
	c := NewAccel(f.sources(), discardLogger())
	got, err := collectAccel(t, c)
	if err != nil {
		t.Fatal(err)
	}
	for series := range got {
		if strings.Contains(series, "managed.") {
			t.Fatalf("no directory watched: the comparison group is not measured, yet %s was sent", series)
		}
	}
	// Watching now: only what grew since is sent.
	f.writeOpt.GrowthWatched = true
	f.writeOpt.ManagedGrownBytes += 8192
	f.writeOpt.ManagedExtentsAdded++
	f.writeOpt.UnmanagedGrownBytes += 16384
	f.writeOpt.UnmanagedExtentsAdded += 4
	got, _ = collectAccel(t, c)
	want := map[string]string{
		"counter spindle.write_opt.preallocated[By]{}":                  "0",
		"counter spindle.write_opt.trimmed[By]{}":                       "0",
		"counter spindle.write_opt.fragments_prevented[{extent}]{}":     "0",
		"counter spindle.write_opt.files_defragmented[{file}]{}":        "0",
		"counter spindle.write_opt.managed.grown[By]{}":                 "8192",
		"counter spindle.write_opt.managed.extents_added[{extent}]{}":   "1",
		"counter spindle.write_opt.unmanaged.grown[By]{}":               "16384",
		"counter spindle.write_opt.unmanaged.extents_added[{extent}]{}": "4",
	}
	checkSeries(t, "watching", got, want)
	// Watched and nothing grew: a measured 0.
	got, _ = collectAccel(t, c)
	for k := range want {
		want[k] = "0"
	}
	checkSeries(t, "watched, nothing grew", got, want)
	// Feature off: nothing at all.
	f.writeOptEnabled = false
	if got, err = collectAccel(t, c); !errors.Is(err, ErrNoData) || len(got) != 0 {
		t.Fatalf("feature off: %v, %v", err, got)
	}
}

// The control group's seven metrics go out together, only where the page-cache program counted
// the groups; a tick without the program sends none of them (not measured), never zeros.
func TestAccelSendsTheControlGroupTogetherOnlyWhereItWasCounted(t *testing.T) {
	f := &fakeFeatures{}
	f.readCache = readcache.Stats{Enabled: true, BudgetBytes: 64 << 20, ResidencyMeasured: true,
		ManagedAccessedBytes: 36864, ManagedMissedBytes: 4096, ControlAccessedBytes: 4096, OwnReadBytes: 8192}
	c := NewAccel(f.sources(), discardLogger())
	got, _ := collectAccel(t, c)
	for series := range got {
		if strings.Contains(series, ".control.") || strings.Contains(series, ".managed.") || strings.Contains(series, "holdout") {
			t.Fatalf("the groups were not counted, yet %s was sent", series)
		}
	}
	f.readCache.HoldoutMeasured, f.readCache.HoldoutPercent = true, 10
	f.readCache.BucketsMeasured = true
	f.readCache.Buckets[2] = readcache.BucketCounts{ManagedAccessed: 40960, ControlAccessed: 8192, ControlMissed: 4096}
	f.readCache.ManagedAccessedBytes += 40960
	f.readCache.ControlAccessedBytes += 8192
	f.readCache.OwnPageHitBytes += 4096
	got, _ = collectAccel(t, c)
	want := map[string]string{
		"gauge spindle.read_cache.holdout[%]{}":             "10",
		"counter spindle.read_cache.managed.accessed[By]{}": "40960",
		"counter spindle.read_cache.managed.missed[By]{}":   "0",
		"counter spindle.read_cache.control.accessed[By]{}": "8192",
		"counter spindle.read_cache.control.missed[By]{}":   "0",
		"counter spindle.read_cache.own.reads[By]{}":        "0",
		"counter spindle.read_cache.own.page_hits[By]{}":    "4096",
		// Every bucket goes out, zeros included, each with its number.
		"counter spindle.read_cache.bucket.managed.accessed[By]{spindle.read_cache.bucket=2}": "40960",
		"counter spindle.read_cache.bucket.control.accessed[By]{spindle.read_cache.bucket=2}": "8192",
		"counter spindle.read_cache.bucket.control.missed[By]{spindle.read_cache.bucket=2}":   "4096",
		"counter spindle.read_cache.bucket.managed.missed[By]{spindle.read_cache.bucket=15}":  "0",
		"counter spindle.read_cache.bucket.control.accessed[By]{spindle.read_cache.bucket=0}": "0",
	}
	for series, value := range want {
		if got[series] != value {
			t.Errorf("%s = %q, want %q (only what followed the first tick)", series, got[series], value)
		}
	}
	if n := countPrefix(got, "counter spindle.read_cache.bucket."); n != 4*readcache.HoldoutBuckets {
		t.Errorf("%d bucket series, want 4 × %d", n, readcache.HoldoutBuckets)
	}
	// With no control drawn the buckets compare nothing: the groups' counts go out, the buckets do not.
	f.readCache.HoldoutPercent = 0
	f.readCache.Buckets[2].ManagedAccessed += 4096
	got, _ = collectAccel(t, c)
	if n := countPrefix(got, "counter spindle.read_cache.bucket."); n != 0 || got["gauge spindle.read_cache.holdout[%]{}"] != "0" {
		t.Errorf("holdout 0: %d bucket series sent, holdout %q", n, got["gauge spindle.read_cache.holdout[%]{}"])
	}
}

func countPrefix(series map[string]string, prefix string) int {
	n := 0
	for s := range series {
		if strings.HasPrefix(s, prefix) {
			n++
		}
	}
	return n
}
