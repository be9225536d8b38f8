package memlimit

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture writes files (path → content) under a temporary root; "{root}" in a content is
// replaced by the root so mountinfo can point into the tree.
func fixture(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(content, "{root}", root)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const meminfo = "MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n"

func TestDetectAndReadCgroupV2WithAncestors(t *testing.T) {
	root := fixture(t, map[string]string{
		"proc/meminfo":         meminfo,
		"proc/pressure/memory": "some avg10=1.50 avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"proc/self/cgroup":     "0::/system.slice/spindle-agent.service\n",
		"proc/self/mountinfo": "24 18 0:22 / /sys rw - sysfs sysfs rw\n" +
			"30 24 0:26 / {root}/cg rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
		"cg/cgroup.controllers":              "cpu memory io\n",
		"cg/system.slice/cgroup.controllers": "memory\n",
		// The slice limits to 1 GiB with 900 MiB used and 300 MiB of page cache: 400 MiB left.
		"cg/system.slice/memory.max":     "1073741824\n",
		"cg/system.slice/memory.current": "943718400\n",
		"cg/system.slice/memory.stat":    "anon 600000000\nactive_file 104857600\ninactive_file 209715200\n",
		// The service itself is unlimited.
		"cg/system.slice/spindle-agent.service/cgroup.controllers": "\n",
		"cg/system.slice/spindle-agent.service/memory.max":         "max\n",
		"cg/system.slice/spindle-agent.service/memory.current":     "10485760\n",
		"cg/system.slice/spindle-agent.service/memory.stat":        "active_file 0\ninactive_file 0\n",
		"cg/system.slice/spindle-agent.service/memory.pressure":    "some avg10=12.25 avg60=3.00 avg300=1.00 total=99\nfull avg10=1.00 avg60=0.00 avg300=0.00 total=5\n",
	})
	r, err := Detect(filepath.Join(root, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Version() != V2 || r.Dir() != filepath.Join(root, "cg/system.slice/spindle-agent.service") {
		t.Fatalf("detected %v %q", r.Version(), r.Dir())
	}
	s, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s.MemAvailableBytes != 8000000*1024 {
		t.Errorf("MemAvailable = %d", s.MemAvailableBytes)
	}
	if s.Cgroup == nil || s.Cgroup.Dir != filepath.Join(root, "cg/system.slice") {
		t.Fatalf("tightest cgroup = %+v, want the slice", s.Cgroup)
	}
	if got, want := s.AvailableBytes(), int64(1073741824-943718400+104857600+209715200); got != want {
		t.Errorf("available = %d, want %d", got, want)
	}
	// The cgroup's own PSI wins over the machine's.
	if s.PressureSomeAvg10 != 12.25 || !strings.HasSuffix(s.PressureSource, "spindle-agent.service/memory.pressure") {
		t.Errorf("pressure = %v from %q", s.PressureSomeAvg10, s.PressureSource)
	}
}

func TestDetectAndReadCgroupV1Hierarchical(t *testing.T) {
	root := fixture(t, map[string]string{
		"proc/meminfo":         meminfo,
		"proc/pressure/memory": "some avg10=0.40 avg60=0.00 avg300=0.00 total=1\n",
		"proc/self/cgroup":     "12:pids:/\n4:memory:/agents/spindle\n1:name=systemd:/\n0::/\n",
		"proc/self/mountinfo": "40 30 0:35 / {root}/cgroup/memory rw - cgroup cgroup rw,memory\n" +
			"41 30 0:36 / {root}/cgroup/unified rw - cgroup2 cgroup2 rw\n",
		"cgroup/memory/agents/spindle/memory.limit_in_bytes": "9223372036854771712\n",
		"cgroup/memory/agents/spindle/memory.usage_in_bytes": "209715200\n",
		// The parent "agents" limits to 256 MiB; v1 reports it as hierarchical_memory_limit.
		"cgroup/memory/agents/spindle/memory.stat": "cache 150000000\nrss 50000000\nhierarchical_memory_limit 268435456\n" +
			"total_active_file 52428800\ntotal_inactive_file 104857600\n",
	})
	r, err := Detect(filepath.Join(root, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Version() != V1 || r.Dir() != filepath.Join(root, "cgroup/memory/agents/spindle") {
		t.Fatalf("detected %v %q", r.Version(), r.Dir())
	}
	s, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s.Cgroup == nil || s.Cgroup.LimitBytes != 268435456 || s.Cgroup.UsageBytes != 209715200 {
		t.Fatalf("cgroup = %+v", s.Cgroup)
	}
	if got, want := s.AvailableBytes(), int64(268435456-209715200+52428800+104857600); got != want {
		t.Errorf("available = %d, want %d", got, want)
	}
	if s.PressureSomeAvg10 != 0.40 {
		t.Errorf("v1 pressure falls back to the machine's PSI: got %v", s.PressureSomeAvg10)
	}
}

func TestUnlimitedCgroupLeavesMemAvailable(t *testing.T) {
	root := fixture(t, map[string]string{
		"proc/meminfo":                 meminfo,
		"proc/self/cgroup":             "4:memory:/\n",
		"proc/self/mountinfo":          "40 30 0:35 / {root}/memory rw - cgroup cgroup rw,memory\n",
		"memory/memory.limit_in_bytes": "9223372036854771712\n",
		"memory/memory.usage_in_bytes": "1000\n",
		"memory/memory.stat":           "total_active_file 0\n",
	})
	r, err := Detect(filepath.Join(root, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if s.Cgroup != nil || s.AvailableBytes() != 8000000*1024 {
		t.Errorf("got cgroup %+v, available %d", s.Cgroup, s.AvailableBytes())
	}
	if !math.IsNaN(s.PressureSomeAvg10) || s.PressureKnown() {
		t.Errorf("no PSI file must read as unknown, got %v", s.PressureSomeAvg10)
	}
}

func TestContainerMountRootIsStripped(t *testing.T) {
	// Inside a container the hierarchy is mounted from the container's own cgroup.
	m := cgroupMount{root: "/kubepods/pod1", mountPoint: "/sys/fs/cgroup/memory"}
	if got := m.dirOf("/kubepods/pod1/app"); got != "/sys/fs/cgroup/memory/app" {
		t.Errorf("dirOf = %q", got)
	}
}

func TestMissingMemAvailableIsAnError(t *testing.T) {
	root := fixture(t, map[string]string{"proc/meminfo": "MemTotal: 1 kB\n"})
	if _, err := ForCgroup(filepath.Join(root, "proc"), NoCgroup, "").Read(); err == nil {
		t.Fatal("want ErrNoMemAvailable")
	}
}
