package readcache

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/memlimit/memlimittest"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// The proof: a workload in a 256 MiB memory cgroup re-reads a 128 MiB hot set every 3 s while
// it also scans a 768 MiB file over and over. Without the cache the scan pushes the hot set out
// (the kernel keeps at most about half of a cgroup's file pages on its active list); with the
// cache, running inside the same cgroup as an agent would, the scan is dropped behind and the
// hot set stays. Then a memory hog in the cgroup makes the cache shrink at once.
const (
	proofLimitBytes   = 256 << 20
	proofHotFiles     = 16
	proofHotFileBytes = 8 << 20
	proofScanBytes    = 768 << 20
	proofScanDuration = 12 * time.Second
	proofHotPeriod    = 3 * time.Second
	proofHogBytes     = 150 << 20
	helperEnv         = "SPINDLE_READCACHE_PROOF_HELPER"
)

type proofResult struct {
	HotResidentFractions []float64 // measured just before each re-read of the hot set
	Before, AfterHog     Stats     // with the cache: at the end of the scan, and under the hog
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		if err := runProofHelper(mode, os.Getenv("PROOF_DIR"), os.Getenv("PROOF_CGROUP")); err != nil {
			fmt.Fprintln(os.Stderr, "proof helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestHotSetSurvivesScanUnderCgroupLimit(t *testing.T) {
	dir := t.TempDir()
	for i := range proofHotFiles {
		writeRandomFile(t, filepath.Join(dir, fmt.Sprintf("hot%02d", i)), proofHotFileBytes)
	}
	writeRandomFile(t, filepath.Join(dir, "scan"), proofScanBytes)

	results := map[string]proofResult{}
	for _, mode := range []string{"without", "with"} {
		evictDir(t, dir)
		cg := memlimittest.New(t, proofLimitBytes)
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+mode, "PROOF_DIR="+dir, "PROOF_CGROUP="+cg.Dir)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s the cache: helper failed: %v\n%s", mode, err, stderr.String())
		}
		var r proofResult
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
			t.Fatalf("%s the cache: helper output %q: %v", mode, stdout.String(), err)
		}
		t.Logf("%s the cache: hot-set residency before each re-read %v", mode, percentages(r.HotResidentFractions))
		results[mode] = r
	}

	without, with := mean(results["without"].HotResidentFractions), mean(results["with"].HotResidentFractions)
	if without > 0.5 {
		t.Errorf("without the cache the scan should evict the hot set, but %.0f%% stayed resident: the proof is not "+
			"proving anything on this machine", without*100)
	}
	if with < 0.9 {
		t.Errorf("with the cache only %.0f%% of the hot set stayed resident (want ≥ 90%%)", with*100)
	}
	before, under := results["with"].Before, results["with"].AfterHog
	t.Logf("with the cache, end of scan: %+v", before)
	t.Logf("with the cache, under the hog: %+v", under)
	if before.DroppedBehindBytes < proofScanBytes {
		t.Errorf("dropped behind %d bytes, want at least one whole scan (%d)", before.DroppedBehindBytes, proofScanBytes)
	}
	if under.BackoffEvents < 1 || under.BudgetBytes >= before.BudgetBytes || under.ResidentBytes >= before.ResidentBytes {
		t.Errorf("the cache did not shrink under the hog: budget %d → %d, resident %d → %d, backoffs %d",
			before.BudgetBytes, under.BudgetBytes, before.ResidentBytes, under.ResidentBytes, under.BackoffEvents)
	}
	if under.PinnedBytes > under.BudgetBytes {
		t.Errorf("pinned %d bytes over the budget %d", under.PinnedBytes, under.BudgetBytes)
	}
}

// runProofHelper is the workload (and, with mode "with", the cache) inside the cgroup.
func runProofHelper(mode, dir, cgroupDir string) error {
	if err := memlimittest.Join(cgroupDir); err != nil {
		return err
	}
	hot := make([]string, proofHotFiles)
	for i := range hot {
		hot[i] = filepath.Join(dir, fmt.Sprintf("hot%02d", i))
	}
	buffer := make([]byte, 1<<20)
	readAll := func(path string) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buffer)
		return err
	}
	for range 2 { // read twice: the kernel's own notion of a hot page
		for _, path := range hot {
			if err := readAll(path); err != nil {
				return err
			}
		}
	}

	var feature *Feature
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	if mode == "with" {
		var err error
		// Deps.Memory is left nil: the cache finds the cgroup it runs in, as the agent would.
		feature, err = New(Config{SampleInterval: 100 * time.Millisecond, PressureThresholdPercent: 60}, Deps{})
		if err != nil {
			return err
		}
		defer feature.Close()
		rc := policy.Default().ReadCache
		rc.Enabled, rc.Prefetch = true, true
		rc.BudgetPercentOfAvailable = 90
		rc.FreeMemoryFloorBytes = policy.MinFreeMemoryFloorBytes
		rc.Include = []string{filepath.ToSlash(dir) + "/**"}
		rc.Pin = []string{filepath.ToSlash(hot[0]), filepath.ToSlash(hot[1])}
		rc.ScanResistanceThresholdBytes = 32 << 20
		if err := feature.Apply(ctx, rc); err != nil {
			return err
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = feature.Run(ctx) }()
	}

	var result proofResult
	deadline := time.Now().Add(proofScanDuration)
	scanBuffer := make([]byte, 1<<20)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			f, err := os.Open(filepath.Join(dir, "scan"))
			if err != nil {
				return
			}
			_, _ = io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, scanBuffer)
			f.Close()
		}
	}()
	s := newSampler()
	for time.Now().Add(proofHotPeriod).Before(deadline.Add(time.Second)) {
		time.Sleep(proofHotPeriod)
		resident, total := int64(0), int64(0)
		for _, path := range hot {
			r, err := s.sample(path)
			if err != nil {
				return err
			}
			resident += r.total()
			total += (r.sizeBytes + s.pageSize - 1) / s.pageSize
		}
		result.HotResidentFractions = append(result.HotResidentFractions, float64(resident)/float64(total))
		for _, path := range hot {
			if err := readAll(path); err != nil {
				return err
			}
		}
	}
	if feature != nil {
		time.Sleep(300 * time.Millisecond)
		result.Before = feature.Stats()
		hog, err := unix.Mmap(-1, 0, proofHogBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return err
		}
		for i := 0; i < len(hog); i += os.Getpagesize() {
			hog[i] = 1
		}
		time.Sleep(time.Second)
		result.AfterHog = feature.Stats()
		_ = unix.Munmap(hog)
	}
	cancel()
	wg.Wait()
	return json.NewEncoder(os.Stdout).Encode(result)
}

func writeRandomFile(t *testing.T, path string, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.CopyN(f, rand.Reader, int64(size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

// evictDir drops every file of dir from the page cache so each run starts cold.
func evictDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := advise(filepath.Join(dir, e.Name()), 0, 0, fadviseDontNeed); err != nil {
			t.Fatal(err)
		}
	}
}

func mean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	return sum / float64(len(values))
}

func percentages(values []float64) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = fmt.Sprintf("%.0f%%", v*100)
	}
	return out
}
