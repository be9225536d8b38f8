package mrcsample

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
	"github.com/spindle-io/spindle/agent/internal/mrc"
)

// TestHotSetAndScanCurve runs a known workload through the real program and the agent's
// estimator: a 16 MiB hot file read ten times, each time followed by a tenth of a 64 MiB scan.
// An LRU cache holding the hot file and one scan slice (about 22 MiB) serves the hot rereads
// (9 × 4,096 of 56,960 pages, 65 %); one smaller than the hot file serves none of them, since
// each pass evicts its own pages before they come back. The curve must show that knee.
func TestHotSetAndScanCurve(t *testing.T) {
	bpftest.RequireRoot(t)
	dir := t.TempDir()
	hot, scan, marker := filepath.Join(dir, "hot"), filepath.Join(dir, "scan"), filepath.Join(dir, "marker")
	writeFile(t, hot, 16<<20)
	writeFile(t, scan, 64<<20)
	writeFile(t, marker, 1<<20)
	pageBytes := uint64(os.Getpagesize())

	est, err := mrc.New(mrc.Settings{KeyBytes: pageBytes, MaxKeys: mrc.DefaultMaxKeys, Rate: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	files := map[uint64]string{inode(t, hot): "hot", inode(t, scan): "scan", inode(t, marker): "marker"}
	var mu sync.Mutex
	markerSeen := make(chan struct{})
	var once sync.Once
	wrongHash := 0
	p, err := Load(Settings{OnlyProcess: os.Getpid(), Handle: func(s Sample) {
		name, ours := files[s.Inode]
		if s.Stream != PageCache || !ours {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if s.Hash != mrc.PageKeyHash(uint32(s.Dev), s.Inode, s.Index) {
			wrongHash++
		}
		if name == "marker" {
			once.Do(func() { close(markerSeen) })
			return
		}
		est.Access(s.Hash)
	}})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer p.Close()
	if err := p.SetThreshold(PageCache, est.Threshold()); err != nil {
		t.Fatal(err)
	}

	// Page-aligned slices: a read() straddling a page boundary touches that page twice.
	scanSlice := int64(1600 * 4096)
	for round := range int64(10) {
		readRange(t, hot, 0, 16<<20)
		readRange(t, scan, round*scanSlice, scanSlice)
	}
	// The ring buffer hands samples over in the order they were reserved: once a marker page
	// arrives, every workload sample before it has been handled.
	for done := false; !done; {
		readRange(t, marker, 0, 1<<20)
		select {
		case <-markerSeen:
			done = true
		default:
		}
	}
	counts, err := p.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if counts.Lost[PageCache] != 0 {
		t.Fatalf("%d samples lost in the kernel buffer", counts.Lost[PageCache])
	}
	mu.Lock()
	defer mu.Unlock()
	if wrongHash != 0 {
		t.Fatalf("%d samples whose hash is not mrc.PageKeyHash of their key", wrongHash)
	}
	c, ok := est.Curve(0)
	if !ok {
		t.Fatal("no sampled access reached the estimator")
	}
	below, _ := c.At(12 << 20)
	above, _ := c.At(28 << 20)
	t.Logf("rate %.3f, %d sampled accesses; hit ratio %.3f at 12 MiB, %.3f at 28 MiB", c.SampleRate, c.SampledAccesses, below, above)
	if below > 0.1 {
		t.Errorf("hit ratio %.3f at 12 MiB, below the 16 MiB hot set: want about 0", below)
	}
	if above < 0.5 || above > 0.75 {
		t.Errorf("hit ratio %.3f at 28 MiB, above hot set + scan slice: want about 0.65", above)
	}
}

// TestOnePagePerGroupAtOnePercent reads a 4 MiB file once at the agent's starting rate, where
// the kernel hashes only each group's chosen page (spindle_mrc.h): the pages it hands over must
// be exactly those whose mrc.PageKeyHash is below the threshold, one in each aligned group of
// mrc.StratumKeys pages.
func TestOnePagePerGroupAtOnePercent(t *testing.T) {
	bpftest.RequireRoot(t)
	dir := t.TempDir()
	data, marker := filepath.Join(dir, "data"), filepath.Join(dir, "marker")
	const pages = 1024
	pageBytes := os.Getpagesize()
	writeFile(t, data, pages*pageBytes)
	writeFile(t, marker, 1<<20)
	dataIno, markerIno := inode(t, data), inode(t, marker)
	est, err := mrc.New(mrc.Settings{KeyBytes: uint64(pageBytes), MaxKeys: mrc.DefaultMaxKeys, Rate: mrc.DefaultRate})
	if err != nil {
		t.Fatal(err)
	}
	threshold := est.Threshold()

	var mu sync.Mutex
	got := map[uint64]int{}
	var dev uint32
	markerSeen := make(chan struct{})
	var once sync.Once
	p, err := Load(Settings{OnlyProcess: os.Getpid(), Handle: func(s Sample) {
		if s.Stream != PageCache {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch s.Inode {
		case dataIno:
			got[s.Index]++
			dev = uint32(s.Dev)
		case markerIno:
			once.Do(func() { close(markerSeen) })
		}
	}})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer p.Close()
	if err := p.SetThreshold(PageCache, threshold); err != nil {
		t.Fatal(err)
	}
	readRange(t, data, 0, int64(pages*pageBytes))
	for done := false; !done; {
		readRange(t, marker, 0, 1<<20)
		select {
		case <-markerSeen:
			done = true
		default:
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("no page of the data file sampled")
	}
	groups := map[uint64]int{}
	for index := range uint64(pages) {
		want := 0
		if mrc.PageKeyHash(dev, dataIno, index) < threshold {
			want = 1
			groups[index/mrc.StratumKeys]++
		}
		if got[index] != want {
			t.Errorf("page %d sampled %d times, want %d", index, got[index], want)
		}
	}
	for g := range uint64(pages / mrc.StratumKeys) {
		if groups[g] != 1 {
			t.Errorf("group %d: %d pages below the threshold, want 1", g, groups[g])
		}
	}
}

func writeFile(t *testing.T, path string, size int) {
	t.Helper()
	buf := make([]byte, size)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, buf, 0o600); err != nil {
		t.Fatal(err)
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func readRange(t *testing.T, path string, off, n int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(io.Discard, io.NewSectionReader(f, off, n)); err != nil {
		t.Fatal(err)
	}
}
