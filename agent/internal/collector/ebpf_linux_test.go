package collector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
)

var ebpfNames = []string{"block_latency", "block_split", "mrc", "page_cache"}

// TestEBPFCollectorsRecordRealIO builds the eBPF collectors as the agent does, drives real
// I/O on a loop device, and checks what one Collect records for that device.
func TestEBPFCollectorsRecordRealIO(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 64<<20)
	loop.SetMaxSectorsKB(t, 128)
	built, err := Build(ebpfNames, Options{ProcPath: "/proc", SysPath: "/sys", Logger: discardLogger(),
		EBPF: EBPFOptions{Mode: EBPFOn}})
	if err != nil {
		t.Fatal(err)
	}
	runner := NewRunner(built, discardLogger())
	defer runner.Close()
	for _, c := range ebpfCapabilities(Capabilities(built, func(string) string { return "off" })) {
		if !c.Available {
			t.Fatalf("capability %s missing: %s", c.Name, c.Reason)
		}
	}
	runner.Collect(context.Background(), newRecordingSink()) // baseline: whatever ran before
	readsBefore := completedReads(t, loop.Name)

	buf := bpftest.AlignedBuffer(t, 1<<20)
	loop.WriteDirect(t, buf, 0, 4) // 4 x 1 MiB, 8 pieces each at 128 KiB: 28 splits
	loop.ReadDirect(t, buf[:4096], 0, 100)
	reads := completedReads(t, loop.Name) - readsBefore
	sink := newRecordingSink()
	for _, r := range runner.Collect(context.Background(), sink) {
		if r.State != StateOK {
			t.Fatalf("collector %s: %s %v", r.Name, r.State, r.Err)
		}
	}

	latency := sink.histograms["histogram spindle.disk.io.latency[s]{disk.io.direction=read,system.device="+loop.Name+"}"]
	var n uint64
	for _, c := range latency.BucketCounts {
		n += c
	}
	// A read the kernel completed without running the programs (on a busy host: 9 of these 100
	// once) is not in the histogram but must be in the untimed count.
	// A histogram goes with its untimed count, 0 included (absent would mean not measured).
	untimed := sink.series["counter spindle.disk.io.untimed[{operation}]{disk.io.direction=read,system.device="+loop.Name+"}"]
	if untimed == "" && n > 0 {
		t.Errorf("read latency of %s sent without its untimed count\n%s", loop.Name, sink.render())
	}
	if untimed == "" {
		untimed = "0"
	}
	if _, ok := sink.histograms["histogram spindle.disk.io.latency[s]{disk.io.direction=write,system.device="+loop.Name+"}"]; ok {
		if sink.series["counter spindle.disk.io.untimed[{operation}]{disk.io.direction=write,system.device="+loop.Name+"}"] == "" {
			t.Errorf("write latency of %s sent without its untimed count\n%s", loop.Name, sink.render())
		}
	}
	if fmt.Sprint(reads-n) != untimed || reads < 100 || (n > 0 && (latency.Sum <= 0 || latency.Sum > 10)) {
		t.Errorf("read latency of %s: %d I/Os, sum %gs, %s untimed; the device completed %d (the test issued 100)\n%s",
			loop.Name, n, latency.Sum, untimed, reads, sink.render())
	}
	if got := sink.series["counter spindle.disk.split_operations[{operation}]{system.device="+loop.Name+"}"]; got != "28" {
		t.Errorf("splits of %s = %q, want 28", loop.Name, got)
	}
	for _, key := range []string{
		"counter spindle.page_cache.accesses[{page}]{}",
		"counter spindle.page_cache.misses[{page}]{}",
	} {
		if _, ok := sink.series[key]; !ok {
			t.Errorf("%s not recorded", key)
		}
	}
}

// completedReads is the disk's own count of completed reads (/sys/block/<name>/stat).
func completedReads(t *testing.T, name string) uint64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("/sys/block", name, "stat"))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	if _, err := fmt.Sscan(string(raw), &n); err != nil {
		t.Fatalf("%s/stat: %v", name, err)
	}
	return n
}

// TestEBPFUnavailableWithoutPrivileges runs the collectors in a child process as nobody (no
// CAP_BPF): in auto mode each becomes a missing capability with the reason and Collect says
// unsupported; in on mode Collect fails. Nothing crashes.
func TestEBPFUnavailableWithoutPrivileges(t *testing.T) {
	if os.Getenv("SPINDLE_EBPF_CHILD") != "" {
		ebpfChild(t)
		return
	}
	bpftest.RequireRoot(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "spindle-ebpf-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	binary := filepath.Join(dir, "collector.test")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binary, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []EBPFMode{EBPFAuto, EBPFOn} {
		cmd := exec.Command(binary, "-test.run=^TestEBPFUnavailableWithoutPrivileges$", "-test.v")
		cmd.Env = append(os.Environ(), "SPINDLE_EBPF_CHILD="+string(mode))
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s mode: the child failed: %v\n%s", mode, err, out)
		}
		var report childReport
		line := strings.TrimSpace(between(string(out), "REPORT ", "\n"))
		if err := json.Unmarshal([]byte(line), &report); err != nil {
			t.Fatalf("%s mode: no report from the child: %v\n%s", mode, err, out)
		}
		if len(report.Capabilities) != len(ebpfNames) {
			t.Fatalf("%s mode: capabilities %+v", mode, report.Capabilities)
		}
		for _, c := range report.Capabilities {
			if c.Available || !strings.Contains(c.Reason, "permission denied") {
				t.Errorf("%s mode: %+v, want missing because of permissions", mode, c)
			}
		}
		for name, state := range report.States {
			want := StateUnsupported
			if mode == EBPFOn {
				want = StateError
			}
			if state != want {
				t.Errorf("%s mode: collector %s is %s, want %s", mode, name, state, want)
			}
		}
	}
}

type childReport struct {
	Capabilities []Capability
	States       map[string]State
}

func ebpfChild(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Fatal("the child must not run as root")
	}
	built, err := Build(ebpfNames, Options{ProcPath: "/proc", SysPath: "/sys", Logger: discardLogger(),
		EBPF: EBPFOptions{Mode: EBPFMode(os.Getenv("SPINDLE_EBPF_CHILD"))}})
	if err != nil {
		t.Fatalf("building must not fail when eBPF is unavailable: %v", err)
	}
	runner := NewRunner(built, discardLogger())
	defer runner.Close()
	report := childReport{Capabilities: ebpfCapabilities(Capabilities(built, func(string) string { return "off" })), States: map[string]State{}}
	for _, r := range runner.Collect(context.Background(), newRecordingSink()) {
		report.States[r.Name] = r.State
		if r.State == StateUnsupported && !errors.Is(r.Err, ErrUnsupported) {
			t.Errorf("%s: unsupported without ErrUnsupported: %v", r.Name, r.Err)
		}
	}
	out, _ := json.Marshal(report)
	os.Stdout.WriteString("REPORT " + string(out) + "\n")
}

func between(s, start, end string) string {
	_, after, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	before, _, _ := strings.Cut(after, end)
	return before
}

// ebpfCapabilities leaves out the other collectors' capabilities (not built in these tests).
func ebpfCapabilities(caps []Capability) []Capability {
	var out []Capability
	for _, c := range caps {
		if strings.HasPrefix(c.Name, "ebpf.") {
			out = append(out, c)
		}
	}
	return out
}
