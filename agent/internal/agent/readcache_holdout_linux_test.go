package agent

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/policy"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// The control group with the real agent and eBPF: a pinned 64 MiB file under a policy holding
// 25 % out. The agent locks only the pages outside the groups its draw (the kernel's, bit for
// bit) puts in the control, which stay out of memory; another process then reads the file:
// the control's pages are its misses, the managed pages are first hits on pages the cache
// brought in, and the batches carry exactly those counts with the holdout.
func TestReadCacheLeavesItsControlGroupAloneAndCountsIt(t *testing.T) {
	bpftest.RequireRoot(t)
	dir := t.TempDir()
	hot := filepath.Join(dir, "hot")
	if err := os.Mkdir(hot, 0o755); err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20 // 32 groups
	file := filepath.Join(hot, "table.dat")
	if err := os.WriteFile(file, bytes.Repeat([]byte("t"), size), 0o644); err != nil {
		t.Fatal(err)
	}
	evict(t, file)
	gw := newPolicyGateway(t)
	cfg := config.Default()
	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = gw.url, "spa_test", "0195f3c2-7a8b-7c3d-9e4f-0123456789ad", "server-1"
	cfg.Interval, cfg.StateDir, cfg.EBPF = time.Second, filepath.Join(dir, "state"), "on"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	startRun(t, cfg)
	document := fmt.Sprintf(`{"schemaVersion":1,"telemetry":{"intervalSeconds":1},"readCache":{"enabled":true,"include":[%q],"pin":[%q],`+
		`"holdoutPercent":25,"budgetBytes":134217728,"freeMemoryFloorBytes":67108864,"scanResistanceThresholdBytes":16777216}}`, hot, file)
	mustBeApplied(t, gw.waitStatus(gw.setPolicy(document)))

	// The draw the agent made, recomputed from the same policy.
	applied, err := policy.Parse([]byte(document))
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(file, &st); err != nil {
		t.Fatal(err)
	}
	draw, key := readcache.NewHoldout(applied), readcache.FileKey{Dev: uint64(st.Dev), Ino: st.Ino} //nolint:unconvert // Dev is uint32 on some architectures
	control := map[int64]bool{}
	for g := int64(0); g < size/readcache.HoldoutGroupBytes; g++ {
		control[g] = draw.Control(key, uint64(g))
	}
	controlBytes := int64(0)
	for _, in := range control {
		if in {
			controlBytes += readcache.HoldoutGroupBytes
		}
	}
	if controlBytes == 0 || controlBytes == size {
		t.Fatalf("the draw holds out %d of %d bytes", controlBytes, size)
	}

	// The pin locks the managed groups and nothing of the control.
	gw.waitBatch("the managed part of the file pinned", 0, func(b map[string][]point) bool {
		pinned, _ := value(b, "spindle.read_cache.pinned")
		return pinned == size-controlBytes
	})
	resident := testutil.ResidentPages(t, file)
	pagesPerGroup := int64(readcache.HoldoutGroupBytes / os.Getpagesize())
	for g, in := range control {
		n := int64(0)
		for p := g * pagesPerGroup; p < (g+1)*pagesPerGroup; p++ {
			if resident[p] {
				n++
			}
		}
		if in && n != 0 || !in && n != pagesPerGroup {
			t.Fatalf("group %d (control %v) has %d of %d pages resident", g, in, n, pagesPerGroup)
		}
	}

	// Another process reads the whole file once.
	before := gw.batchCount()
	if out, err := exec.Command("sh", "-c", `cat "$1" >/dev/null`, "sh", file).CombinedOutput(); err != nil {
		t.Fatalf("cat: %v %s", err, out)
	}
	// A control page whose read-ahead I/O is still in flight when the reader reaches it can go
	// without its access (its miss was counted when it was added): seen in CI under load 23, 21
	// pages of 5,632. So the control's accesses are held to within 64 pages; the rest exactly.
	const inFlightSlack = 64 * 4096
	var sums map[string]int64
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(50 * time.Millisecond) {
		sums = gw.sumsSince(before)
		if sums["spindle.read_cache.control.accessed"] >= controlBytes-inFlightSlack && sums["spindle.read_cache.own.page_hits"] >= size-controlBytes {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the read's control accesses and first hits on the cache's pages did not arrive in %s: %v", waitLimit, sums)
		}
	}
	t.Logf("after the read: %v", sums)
	if control := sums["spindle.read_cache.control.accessed"]; control < controlBytes-inFlightSlack || control > controlBytes ||
		sums["spindle.read_cache.managed.accessed"] != size-controlBytes {
		t.Errorf("accesses: control %d, managed %d; want %d and %d", sums["spindle.read_cache.control.accessed"],
			sums["spindle.read_cache.managed.accessed"], controlBytes, size-controlBytes)
	}
	if sums["spindle.read_cache.control.missed"] < controlBytes-64<<10 || sums["spindle.read_cache.managed.missed"] != 0 {
		t.Errorf("misses: control %d (want about %d), managed %d (want none: the cache had them in)",
			sums["spindle.read_cache.control.missed"], controlBytes, sums["spindle.read_cache.managed.missed"])
	}
	if sums["spindle.read_cache.own.page_hits"] != size-controlBytes {
		t.Errorf("first hits on the cache's pages %d, want %d", sums["spindle.read_cache.own.page_hits"], size-controlBytes)
	}
	if holdout, _ := value(gw.lastBatch(), "spindle.read_cache.holdout"); holdout != 25 {
		t.Errorf("holdout %d %%, want 25", holdout)
	}
}

func evict(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
}

// sumsSince adds up every int point of each metric in the batches after the first `after`.
func (g *policyGateway) sumsSince(after int) map[string]int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]int64{}
	for _, b := range g.batches[min(after, len(g.batches)):] {
		for name, points := range b {
			for _, p := range points {
				out[name] += p.value
			}
		}
	}
	return out
}

func (g *policyGateway) lastBatch() map[string][]point {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.batches) == 0 {
		return nil
	}
	return g.batches[len(g.batches)-1]
}
