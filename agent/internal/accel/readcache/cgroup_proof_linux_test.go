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

// The proof: a workload in a 256 MiB memory cgroup reads a hot set of 5/8 of the limit (more
// than the kernel's active list keeps, less than the cache's budget), then in each round scans
// twice the limit of a file three times the limit, measures how much of the hot set is still
// resident and re-reads it. The scan reads each chunk twice, as a report or a backup that
// re-reads what it just read does: the kernel then takes the scan for reuse and pushes the hot
// set out of its active list (a scan touched once is sometimes kept out by the kernel itself,
// and then the control proves nothing). With the cache, running inside the same cgroup as an
// agent would, the scan is dropped behind and the hot set stays. Then a memory hog in the
// cgroup makes the cache shrink at once.
//
// Rounds are counted in bytes scanned, not seconds: on a loaded machine a timed scan read too
// little between samples and the control run kept 68 % of the hot set, proving nothing.
const (
	proofLimitBytes   = 256 << 20
	proofHotFiles     = 16
	proofHotFileBytes = proofLimitBytes * 5 / 8 / proofHotFiles
	proofScanBytes    = 3 * proofLimitBytes
	proofScanPerRound = 2 * proofLimitBytes
	proofRounds       = 4
	proofScanChunk    = 16 << 20
	// The first round after reading the hot set twice only moves it from the kernel's active
	// list to the inactive one (it stayed 100 % resident); both runs skip it alike.
	proofWarmupRounds = 1
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
	scan, err := os.Open(filepath.Join(dir, "scan"))
	if err != nil {
		return err
	}
	defer scan.Close()
	scanBuffer := make([]byte, 1<<20)
	var scanOffset int64
	s := newSampler()
	readChunkTwice := func() error {
		for range 2 {
			for offset := scanOffset; offset < scanOffset+proofScanChunk; {
				n, err := scan.ReadAt(scanBuffer, offset)
				if err != nil && err != io.EOF {
					return err
				}
				offset += int64(n)
			}
		}
		scanOffset = (scanOffset + proofScanChunk) % proofScanBytes
		return nil
	}
	for round := range proofWarmupRounds + proofRounds {
		for scanned := int64(0); scanned < proofScanPerRound; scanned += proofScanChunk {
			if err := readChunkTwice(); err != nil {
				return err
			}
			if feature != nil {
				// A sampling cache can only drop behind what it has seen, so the scan is paced at
				// one chunk per sample, the way a throttled backup or report would read. Waiting
				// for the sample, not a timer, keeps that pace on a busy machine too.
				for seen := feature.Stats().Samples; feature.Stats().Samples < seen+1; {
					time.Sleep(10 * time.Millisecond)
				}
			}
		}
		if round < proofWarmupRounds {
			continue // the hot set is still wholly active: nothing to measure yet
		}
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
