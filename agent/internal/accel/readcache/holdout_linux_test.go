package readcache

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/memlimit"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

type fixedMemory struct{ snapshot memlimit.Snapshot }

func (m fixedMemory) Read() (memlimit.Snapshot, error) { return m.snapshot, nil }

// readsEverything says every managed page was read once per sample: heat for the whole file.
type readsEverything struct{ pages int64 }

func (r readsEverything) FileAccesses(paths []string) map[string]FileAccess {
	out := map[string]FileAccess{}
	for _, p := range paths {
		out[p] = FileAccess{AccessedPages: r.pages}
	}
	return out
}

// countingGroups stands in for the page-cache program: it records what the cache asks of it and
// hands back fixed counts per file and call.
type countingGroups struct {
	holdout  Holdout
	threads  []int
	listed   []FileKey
	perCall  GroupCounts
	buckets  [HoldoutBuckets]BucketCounts // per call
	measures bool
}

func (g *countingGroups) Measuring() bool            { return g.measures }
func (g *countingGroups) SetHoldout(h Holdout) error { g.holdout = h; return nil }
func (g *countingGroups) SetCacheThread(tid int) error {
	g.threads = append(g.threads, tid)
	return nil
}
func (g *countingGroups) GroupCounts(files []FileKey) (map[FileKey]GroupCounts, error) {
	g.listed = files
	out := map[FileKey]GroupCounts{}
	for _, f := range files {
		out[f] = g.perCall
	}
	return out, nil
}

func (g *countingGroups) BucketCounts() ([HoldoutBuckets]BucketCounts, error) { return g.buckets, nil }

func evictFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
}

// With a group source, prefetch reads in the managed groups and never the control's; the budget
// and the hot set count only the managed bytes; the sampling thread is named while it works
// and unnamed after; the groups' counts add up in the statistics. Without one, nothing is held out.
func TestPrefetchLeavesTheControlGroupsAlone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "table.dat")
	const size = 32 << 20 // 16 groups
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fsync(mustOpen(t, path)); err != nil {
		t.Fatal(err)
	}
	groups := &countingGroups{measures: true, perCall: GroupCounts{ManagedAccessed: 90, ManagedMissed: 9, ControlAccessed: 10, ControlMissed: 3, OwnAdded: 5, OwnHits: 2}}
	groups.buckets[3] = BucketCounts{ManagedAccessed: 7, ManagedMissed: 2, ControlAccessed: 1, ControlMissed: 1}
	memory := fixedMemory{memlimit.Snapshot{MemAvailableBytes: 8 << 30, PressureSomeAvg10: math.NaN()}}
	f, err := New(Config{}, Deps{Memory: memory, Access: readsEverything{pages: size / 4096}, Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := policy.Default()
	p.ReadCache.Enabled, p.ReadCache.Prefetch, p.ReadCache.HoldoutPercent = true, true, 50
	p.ReadCache.Include = []string{dir + "/**"}
	if err := f.ApplyPolicy(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if groups.holdout != NewHoldout(p) {
		t.Fatalf("the group source got draw %+v, want the policy's %+v", groups.holdout, NewHoldout(p))
	}
	evictFile(t, path)
	samples := 3
	for range samples { // baseline, heat, prefetch
		f.Sample(context.Background())
	}

	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	key := FileKey{Dev: uint64(st.Dev), Ino: st.Ino} //nolint:unconvert // Dev is uint32 on some architectures
	draw := NewHoldout(p)
	lastSample := time.Now()
	// WILLNEED starts the reads; mincore sees a page once it is read in. It is a hint: on a busy
	// disk the kernel drops readahead it cannot queue (seen in CI: whole groups never read), and
	// the cache asks again for what is still missing at its next sample, so the wait samples too.
	residentGroups := residentByGroup(t, path)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		done := true
		for g, resident := range residentGroups {
			done = done && (draw.Control(key, uint64(g)) || resident == HoldoutGroupBytes/4096)
		}
		if done {
			break
		}
		if time.Since(lastSample) > time.Second {
			f.Sample(context.Background())
			samples++
			lastSample = time.Now()
		}
		residentGroups = residentByGroup(t, path)
	}
	controlBytes := int64(0)
	for g, resident := range residentGroups {
		control := draw.Control(key, uint64(g))
		if control {
			controlBytes += HoldoutGroupBytes
		}
		if control && resident != 0 {
			t.Errorf("control group %d has %d pages resident: the cache read it in", g, resident)
		}
		if !control && resident != HoldoutGroupBytes/4096 {
			t.Errorf("managed group %d has %d of %d pages resident after prefetch", g, resident, HoldoutGroupBytes/4096)
		}
	}
	st2 := f.Stats()
	if st2.HotSetBytes != size-controlBytes {
		t.Errorf("hot set %d bytes, want the managed %d (the control is not the cache's to hold)", st2.HotSetBytes, size-controlBytes)
	}
	if !st2.HoldoutMeasured || st2.HoldoutPercent != 50 {
		t.Errorf("holdout measured %v at %d %%", st2.HoldoutMeasured, st2.HoldoutPercent)
	}
	// Each sample of one file adds 90 pages managed, ….
	n := int64(samples)
	if st2.ManagedAccessedBytes != n*90*4096 || st2.ControlMissedBytes != n*3*4096 || st2.OwnPageHitBytes != n*2*4096 {
		t.Errorf("group counts in the stats: %+v", st2)
	}
	if !st2.BucketsMeasured || st2.Buckets[3] != (BucketCounts{n * 7 * 4096, n * 2 * 4096, n * 4096, n * 4096}) || st2.Buckets[4] != (BucketCounts{}) {
		t.Errorf("bucket counts in the stats: measured %v, %+v", st2.BucketsMeasured, st2.Buckets)
	}
	if len(groups.listed) != 1 || groups.listed[0] != key {
		t.Errorf("the source counts %v, want the one managed file %v", groups.listed, key)
	}
	named := 0
	for i, tid := range groups.threads {
		if i%2 == 0 && tid != 0 {
			named++
		}
		if i%2 == 1 && tid != 0 {
			t.Fatalf("thread calls %v: every sample must unname its thread after", groups.threads)
		}
	}
	if named != samples {
		t.Fatalf("thread calls %v: every sample names its thread first", groups.threads)
	}
}

func TestNothingIsHeldOutWhereTheGroupsAreNotCounted(t *testing.T) {
	groups := &countingGroups{measures: false}
	memory := fixedMemory{memlimit.Snapshot{MemAvailableBytes: 8 << 30, PressureSomeAvg10: math.NaN()}}
	f, err := New(Config{}, Deps{Memory: memory, Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	p := policy.Default()
	p.ReadCache.Enabled, p.ReadCache.Include = true, []string{dir + "/**"}
	if err := f.ApplyPolicy(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	f.Sample(context.Background())
	f.Sample(context.Background())
	if st := f.Stats(); st.HoldoutMeasured || f.drawn.Active() || len(groups.threads) != 0 {
		t.Fatalf("the groups are not counted, yet the cache holds out %+v (measured %v, threads %v)", f.drawn, st.HoldoutMeasured, groups.threads)
	}
}

// With no control drawn (holdoutPercent 0) the groups are still counted, but the buckets compare
// nothing and are not sent as measured.
func TestBucketsAreNotMeasuredWithoutAControl(t *testing.T) {
	groups := &countingGroups{measures: true}
	groups.buckets[0] = BucketCounts{ManagedAccessed: 5}
	memory := fixedMemory{memlimit.Snapshot{MemAvailableBytes: 8 << 30, PressureSomeAvg10: math.NaN()}}
	f, err := New(Config{}, Deps{Memory: memory, Groups: groups})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	p := policy.Default()
	p.ReadCache.Enabled, p.ReadCache.Include, p.ReadCache.HoldoutPercent = true, []string{dir + "/**"}, 0
	if err := f.ApplyPolicy(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	f.Sample(context.Background())
	if st := f.Stats(); !st.HoldoutMeasured || st.BucketsMeasured || st.Buckets[0] != (BucketCounts{}) {
		t.Fatalf("holdout 0: measured %v, buckets measured %v (%+v)", st.HoldoutMeasured, st.BucketsMeasured, st.Buckets[0])
	}
}

func mustOpen(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return int(f.Fd())
}

// residentByGroup counts the resident pages of each group of the file.
func residentByGroup(t *testing.T, path string) []int {
	t.Helper()
	r, err := newSampler().sample(path)
	if err != nil {
		t.Fatal(err)
	}
	pagesPerGroup := int64(HoldoutGroupBytes / 4096)
	groups := make([]int, (r.sizeBytes+HoldoutGroupBytes-1)/HoldoutGroupBytes)
	for p := int64(0); p < r.sizeBytes/4096; p++ {
		if r.resident(p) {
			groups[p/pagesPerGroup]++
		}
	}
	return groups
}

// A scanner under a control group: drop-behind evicts its managed pages and leaves the control's,
// and every page read is counted once. (With groups smaller than the kernel's large folios, the
// folios straddling both sides could not be dropped, and their pages came back as misses every
// sample: twice the pages read.)
func TestDropBehindUnderAControlGroupCountsEachPageOnce(t *testing.T) {
	dir := t.TempDir()
	scan := filepath.Join(dir, "scan")
	const size = 1 << 30
	if err := os.WriteFile(scan, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(scan, size); err != nil { // sparse: page-cache work, no disk
		t.Fatal(err)
	}
	memory := fixedMemory{memlimit.Snapshot{MemAvailableBytes: 8 << 30, PressureSomeAvg10: math.NaN()}}
	f, err := New(Config{}, Deps{Memory: memory, Groups: &countingGroups{measures: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := policy.Default()
	budget := int64(64 << 20)
	p.ReadCache.Enabled, p.ReadCache.Include, p.ReadCache.HoldoutPercent = true, []string{dir + "/**"}, 50
	p.ReadCache.BudgetBytes, p.ReadCache.ScanResistanceThresholdBytes = &budget, 8<<20
	if err := f.ApplyPolicy(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(scan)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	buf := make([]byte, 1<<20)
	f.Sample(context.Background()) // the baseline
	for off := int64(0); off < size; off += 1 << 20 {
		if _, err := file.ReadAt(buf, off); err != nil {
			t.Fatal(err)
		}
		if off%(64<<20) == 64<<20-1<<20 {
			f.Sample(context.Background())
		}
	}
	f.Sample(context.Background())
	st := f.Stats()
	t.Logf("read %d MiB: misses %d MiB, dropped behind %d MiB", size>>20, st.MissBytes>>20, st.DroppedBehindBytes>>20)
	// A few pages come back between a drop and the next sample (read ahead, or still in flight when
	// dropped) with or without a control: 5-8 % here. Folios kept by straddling made it 100 %.
	if st.MissBytes > size*115/100 {
		t.Errorf("%d MiB counted as read from storage for %d MiB read: pages counted again", st.MissBytes>>20, size>>20)
	}
	// About half the scan is managed (50 %), all of it behind the reader but the last 4 MiB.
	if st.DroppedBehindBytes < size/4 || st.DroppedBehindBytes > size*3/4 {
		t.Errorf("dropped behind %d MiB of a %d MiB scan, want about half", st.DroppedBehindBytes>>20, size>>20)
	}
}
