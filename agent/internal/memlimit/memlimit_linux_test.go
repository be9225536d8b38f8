package memlimit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/memlimit"
	"github.com/spindle-io/spindle/agent/internal/memlimit/memlimittest"
)

// TestRealCgroupChargesPageCache reads a file from a process inside a real, freshly made memory
// cgroup and checks the Reader sees the limit, the usage and the page cache the read charged.
func TestRealCgroupChargesPageCache(t *testing.T) {
	const limit = 64 << 20
	cg := memlimittest.New(t, limit)
	file := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(file, make([]byte, 24<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	// Write back and evict it so the read inside the cgroup is what brings (and charges) the pages.
	dropFileCache(t, file)
	script := `echo $$ > "$1/cgroup.procs" && cat "$2" > /dev/null && read line`
	cmd := exec.Command("sh", "-c", script, "sh", cg.Dir, file)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()

	var s memlimit.Snapshot
	for range 100 {
		if s, err = cg.Reader().Read(); err != nil {
			t.Fatal(err)
		}
		if s.Cgroup != nil && s.Cgroup.FileBytes >= 20<<20 {
			break
		}
		sleep()
	}
	if s.Cgroup == nil {
		t.Fatalf("the %v cgroup %s reads as unlimited", cg.Version, cg.Dir)
	}
	t.Logf("%v %s: limit %d, usage %d, file %d, available %d, MemAvailable %d, pressure %v (%s)",
		cg.Version, cg.Dir, s.Cgroup.LimitBytes, s.Cgroup.UsageBytes, s.Cgroup.FileBytes,
		s.AvailableBytes(), s.MemAvailableBytes, s.PressureSomeAvg10, s.PressureSource)
	if s.Cgroup.LimitBytes != limit {
		t.Errorf("limit = %d, want %d", s.Cgroup.LimitBytes, limit)
	}
	if s.Cgroup.FileBytes < 20<<20 || s.Cgroup.UsageBytes < s.Cgroup.FileBytes {
		t.Errorf("the 24 MiB read was not charged: usage %d, file %d", s.Cgroup.UsageBytes, s.Cgroup.FileBytes)
	}
	if s.AvailableBytes() > limit || s.AvailableBytes() < limit-s.Cgroup.UsageBytes {
		t.Errorf("available %d outside [limit-usage, limit]", s.AvailableBytes())
	}

	// This process's own cgroup is detected with the same version.
	own, err := memlimit.Detect("/proc")
	if err != nil {
		t.Fatal(err)
	}
	if own.Version() != cg.Version {
		t.Errorf("Detect found %v, the test cgroup is %v", own.Version(), cg.Version)
	}
}
