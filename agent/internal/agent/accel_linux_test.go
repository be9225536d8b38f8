package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opamp-go/protobufs"
	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel/memlatency"
	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/forward"
	"github.com/spindle-io/spindle/agent/internal/status"
)

// The run loop with the real features, on this machine: a policy enabling the read cache, the
// fragmentation scan and preallocation is applied and their statistics arrive in the next
// batches; one the machine cannot honour (defragmentation on tmpfs) is refused and the previous
// policy keeps running; after a restart without any gateway policy the last known good one runs
// again, features included.
func TestPolicyRunsTheAccelerationFeaturesAndExportsTheirStats(t *testing.T) {
	shm := tmpfsDir(t)
	dir := t.TempDir()
	hot, grow := filepath.Join(dir, "hot"), filepath.Join(dir, "grow")
	for _, d := range []string{hot, grow} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"pinned.dat", "a.dat", "b.dat", "c.dat"} {
		if err := os.WriteFile(filepath.Join(hot, name), bytes.Repeat([]byte(name[:1]), 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gw := newPolicyGateway(t)
	cfg := config.Default()
	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = gw.url, "spa_test", "0195f3c2-7a8b-7c3d-9e4f-0123456789ab", "server-1"
	cfg.Interval, cfg.StateDir, cfg.EBPF = time.Second, filepath.Join(dir, "state"), "off"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	stop := startRun(t, cfg)

	// 1. Read cache (with a pin) and a fragmentation scan of the hot directory.
	telemetry := fmt.Sprintf(`"telemetry":{"intervalSeconds":1,"fragmentationScan":{"paths":[%q],"periodSeconds":60}}`, hot)
	readCache := fmt.Sprintf(`"readCache":{"enabled":true,"include":[%q],"pin":[%q],"budgetBytes":67108864,`+
		`"freeMemoryFloorBytes":67108864,"scanResistanceThresholdBytes":16777216}`, hot, filepath.Join(hot, "pinned.dat"))
	first := gw.setPolicy(`{"schemaVersion":1,` + telemetry + `,` + readCache + `}`)
	mustBeApplied(t, gw.waitStatus(first))
	seen := gw.waitBatch("the read cache's resident bytes and budget", 0, func(b map[string][]point) bool {
		resident, _ := value(b, "spindle.read_cache.resident")
		budget, _ := value(b, "spindle.read_cache.budget")
		pinned, _ := value(b, "spindle.read_cache.pinned")
		files, _ := value(b, "spindle.read_cache.managed_files")
		_, misses := value(b, "spindle.read_cache.misses")
		_, hits := value(b, "spindle.read_cache.hits")
		return resident >= 4<<20 && budget > 0 && pinned == 1<<20 && files == 4 && misses && !hits // no eBPF access source: no hits
	})
	// The memory-read latency calibrated at start, in the state directory, sent every tick.
	gw.waitBatch("the memory-read latency", 0, func(b map[string][]point) bool {
		latency := b["spindle.read_cache.memory_read_latency"]
		samples, _ := value(b, "spindle.read_cache.memory_read_latency.samples")
		return len(latency) == 1 && latency[0].double > 0 && latency[0].double < 1e-3 && samples == memlatency.Reads-2*204
	})
	gw.waitBatch("the policy's fragmentation scan path", 0, func(b map[string][]point) bool {
		files, _ := value(b, "spindle.fragmentation.files", "spindle.scan.root", hot)
		return files == 4
	})

	// 2. Preallocation of growing logs, beside the read cache.
	writeOpt := fmt.Sprintf(`"writeOptimization":{"enabled":true,"preallocation":[{"pattern":%q,"chunkBytes":1048576}]}`,
		grow+"/*.log")
	second := gw.setPolicy(`{"schemaVersion":1,` + telemetry + `,` + readCache + `,` + writeOpt + `}`)
	mustBeApplied(t, gw.waitStatus(second))
	wal := filepath.Join(grow, "wal.log")
	appendSlowly(t, wal, 2<<20)
	seen = gw.waitBatch("write_opt.preallocated > 0 next to the read cache", seen, func(b map[string][]point) bool {
		preallocated, _ := value(b, "spindle.write_opt.preallocated")
		_, cache := value(b, "spindle.read_cache.resident")
		return preallocated > 0 && cache
	})
	var st unix.Stat_t
	if err := unix.Stat(wal, &st); err != nil || st.Size != 2<<20 || st.Blocks*512 <= st.Size {
		t.Fatalf("wal.log: size %d, allocated %d (%v); want its size unchanged and space reserved past it", st.Size, st.Blocks*512, err)
	}

	// 3. Defragmentation on tmpfs cannot work: refused, and the second policy stays in force.
	defrag := fmt.Sprintf(`"writeOptimization":{"enabled":true,"preallocation":[{"pattern":%q,"chunkBytes":1048576}],`+
		`"defragmentation":{"enabled":true,"include":[%q]}}`, grow+"/*.log", shm)
	third := gw.setPolicy(`{"schemaVersion":1,` + telemetry + `,` + readCache + `,` + defrag + `}`)
	refusal := gw.waitStatus(third)
	if refusal.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_FAILED ||
		!strings.HasPrefix(refusal.GetErrorMessage(), "the agent refused the policy, the previous one stays in force: write optimisation could not be applied") ||
		!strings.Contains(refusal.GetErrorMessage(), "it needs ext4") || !strings.Contains(refusal.GetErrorMessage(), "switch defragmentation off for these paths") {
		t.Fatalf("defragmentation on tmpfs: %v %q", refusal.GetStatus(), refusal.GetErrorMessage())
	}
	// Still preallocated under the second policy: 8 MiB more passes whatever the second policy
	// reserved for the first 2 MiB (windows of 1 and 8 MiB, the second due 4 MiB before its
	// end), so a new window is due whenever the agent saw the file first.
	appendSlowly(t, wal, 8<<20)
	gw.waitBatch("both features still running after the refusal", seen, func(b map[string][]point) bool {
		preallocated, _ := value(b, "spindle.write_opt.preallocated")
		resident, _ := value(b, "spindle.read_cache.resident")
		return preallocated > 0 && resident > 0
	})
	checkStatus(t, cfg, second, third)

	// 4. Restart with no policy offered: the last known good one runs again, features included.
	stop()
	// The window before the restart was sized to last a minute at appendSlowly's rate, far more
	// than the appends below: give that space back (as the agent's idle trim would) so the
	// restored feature has to reserve again, which is what this step checks.
	releaseReservation(t, wal)
	gw.setPolicy("")
	restartedFrom := gw.batchCount()
	startRun(t, cfg)
	// Run returns at once and restores the policy in the background: append only once a batch
	// shows the restored features at work, or the growth could pass before anything watches it.
	restored := gw.waitBatch("the restored read cache", restartedFrom, func(b map[string][]point) bool {
		resident, _ := value(b, "spindle.read_cache.resident")
		return resident > 0
	})
	// The log keeps growing, as a database's does: under load the restored watcher can come up
	// after a burst of appends, and it reacts to the next one. Grow past everything reserved
	// before the restart, then a little more each round until a reservation shows.
	appendSlowly(t, wal, 3<<20)
	// A reservation is a delta in the one batch of its interval, and windows grow fast (few
	// reservations), so the write side and the read side are each looked for in any batch since
	// the restart, not both in one.
	preallocating := func(b map[string][]point) bool {
		preallocated, _ := value(b, "spindle.write_opt.preallocated")
		return preallocated > 0
	}
	for round := 0; !gw.anyBatch(restored, preallocating); round++ {
		if round == 30 {
			gw.waitBatch("preallocation after the restart", restored, preallocating) // fails with the last batches
		}
		appendSlowly(t, wal, 256<<10)
		time.Sleep(time.Second)
	}
	gw.waitBatch("the read cache and the scan after the restart", restored, func(b map[string][]point) bool {
		resident, _ := value(b, "spindle.read_cache.resident")
		files, _ := value(b, "spindle.fragmentation.files", "spindle.scan.root", hot)
		return resident > 0 && files == 4
	})
	checkStatus(t, cfg, second, "")
}

func mustBeApplied(t *testing.T, s *protobufs.RemoteConfigStatus) {
	t.Helper()
	if s.GetStatus() != protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED {
		t.Fatalf("policy not applied: %v %s", s.GetStatus(), s.GetErrorMessage())
	}
}

// checkStatus reads status.json: the policy in force, the refusal, and both features available.
func checkStatus(t *testing.T, cfg config.Config, inForce, refused string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := status.Read(cfg.StatusPath())
		ok := err == nil && st.Policy != nil && st.Policy.Hash == inForce &&
			(refused == "" || (st.Policy.Refused != nil && st.Policy.Refused.Hash == refused))
		if ok {
			available := map[string]bool{}
			for _, c := range st.Capabilities {
				available[c.Name] = c.Available
			}
			if !available[capabilityReadCache] || !available[capabilityWriteOptimization] {
				t.Fatalf("capabilities %+v; want both acceleration features available", st.Capabilities)
			}
			// As root the open gate can hold opens: preallocation comes before a new file's
			// first write, unless the config says write_optimization.first_write: inotify.
			if want := cfg.WriteOptimization.FirstWrite != config.FirstWriteInotify; available[capabilityFirstWrite] != want {
				t.Fatalf("capabilities %+v; want %s available: %v", st.Capabilities, capabilityFirstWrite, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("status.json: %v, policy %+v; want %s in force (refused %q)", err, st.Policy, inForce, refused)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startRun runs the agent until the returned stop is called (or the test ends).
func startRun(t *testing.T, cfg config.Config) (stop func()) {
	t.Helper()
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg, "agent.yaml", Options{Version: "9.9.9", Logger: slog.New(slog.NewTextHandler(&logs, nil)),
			Forward: forward.Settings{IdleCheck: 50 * time.Millisecond, MinBackoff: 50 * time.Millisecond}})
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("agent log:\n%s", logs.String())
		}
	})
	return stop
}

// appendSlowly grows path by total bytes in 64 KiB appends, as a database grows its log.
// releaseReservation frees the space reserved past path's end (fallocate KEEP_SIZE) by punching
// it out, leaving the file's size and data as they are.
func releaseReservation(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if past := st.Blocks*512 - st.Size; past > 0 {
		if err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, st.Size, past+(1<<20)); err != nil {
			t.Fatalf("release the reservation past %s's end: %v", path, err)
		}
	}
}

func appendSlowly(t *testing.T, path string, total int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte("w"), 64<<10)
	for written := 0; written < total; written += len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tmpfsDir is a directory on tmpfs (/dev/shm), where ext4 defragmentation cannot work.
func tmpfsDir(t *testing.T) string {
	t.Helper()
	var fs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
		if os.Getenv("CI") == "true" {
			t.Fatalf("/dev/shm is not tmpfs here (%v)", err)
		}
		t.Skip("/dev/shm is not tmpfs here")
	}
	dir, err := os.MkdirTemp("/dev/shm", "spindle-defrag-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
