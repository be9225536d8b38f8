package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestParseAppliesDefaults(t *testing.T) {
	cfg, err := Parse([]byte(""))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Interval != 10*time.Second || cfg.StateDir != "/var/lib/spindle" || cfg.ProcPath != "/proc" ||
		cfg.SysPath != "/sys" || cfg.Spool.MaxBytes != 256<<20 || cfg.LogLevel != "info" ||
		cfg.ReadCache.MemoryLatencyPeriod != 10*time.Minute || cfg.WriteOptimization.FirstWrite != "auto" ||
		cfg.WriteOptimization.ExtentSizeHint != "off" {
		t.Fatalf("defaults not applied: %+v", cfg)
	}
	if got := cfg.EnabledCollectors(func(string) bool { return true }); strings.Join(got, ",") != "block_latency,block_split,diskstats,filesystem,fragmentation,meminfo,mrc,page_cache,pressure,sqlserver" {
		t.Fatalf("enabled collectors = %v", got)
	}
}

func TestParseReadsEveryField(t *testing.T) {
	cfg, err := Parse([]byte(`
gateway: https://gw.example.com:4318
credential: spa_abc
agent_id: a1
server_id: s1
interval: 2s
state_dir: /tmp/spindle
proc_path: /host/proc
sys_path: /host/sys
log_level: debug
spool: {max_bytes: 2097152}
collectors: {diskstats: {enabled: false}}
ebpf: "off"
read_cache: {memory_latency_period: 30m}
write_optimization: {first_write: inotify, extent_size_hint: first_window}
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Interval != 2*time.Second || cfg.ProcPath != "/host/proc" || cfg.Spool.MaxBytes != 2<<20 ||
		cfg.ReadCache.MemoryLatencyPeriod != 30*time.Minute || cfg.WriteOptimization.FirstWrite != "inotify" ||
		cfg.WriteOptimization.ExtentSizeHint != "first_window" {
		t.Fatalf("fields not read: %+v", cfg)
	}
	if got := cfg.EnabledCollectors(func(string) bool { return true }); strings.Join(got, ",") != "filesystem,fragmentation,meminfo,pressure,sqlserver" {
		t.Fatalf("diskstats and the eBPF collectors should be off, got %v", got)
	}
	if err := cfg.RequireEnrolled("x"); err != nil {
		t.Fatal(err)
	}
}

func TestValidationErrorsSayWhatIsWrong(t *testing.T) {
	cases := map[string]string{
		"interval: 500ms":                               "below the minimum 1s",
		"gateway: ftp://x":                              "must look like https://host:4318",
		"gateway: http://x:4318/?a=b":                   "query",
		"credential: spe_token":                         "enrolment token",
		"state_dir: relative/dir":                       "state_dir must be an absolute path",
		"spool: {max_bytes: 10}":                        "spool.max_bytes",
		"log_level: loud":                               "log_level",
		"intervall: 10s":                                "field intervall not found",
		"collectors: {diskstatz: {enabled: true}}":      "field diskstatz not found",
		"read_cache: {memory_latency_period: 10s}":      "read_cache.memory_latency_period 10s is below the minimum 1m0s",
		"collectors: {mrc: {window: 5s}}":               "collectors.mrc.window 5s must be between 10s and 1h",
		"write_optimization: {first_write: fanotify}":   `write_optimization.first_write "fanotify" is not one of auto, inotify`,
		"write_optimization: {extent_size_hint: 64MiB}": `write_optimization.extent_size_hint "64MiB" is not one of off, first_window`,
	}
	for yamlText, want := range cases {
		_, err := Parse([]byte(yamlText))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: want error containing %q, got %v", yamlText, want, err)
		}
	}
}

func TestRequireEnrolledTellsHowToEnrol(t *testing.T) {
	err := Default().RequireEnrolled("/etc/spindle/agent.yaml")
	if err == nil || !strings.Contains(err.Error(), "spindle-agent enroll --token") ||
		!strings.Contains(err.Error(), "agent_id, credential, gateway, server_id") {
		t.Fatalf("unexpected: %v", err)
	}
}

func TestSaveIsAtomicAndPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "etc", "agent.yaml")
	cfg := Default()
	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = "http://127.0.0.1:4318", "spa_x", "a", "s"
	off := false
	cfg.Collectors.Meminfo.Enabled = &off
	if err := Save(path, cfg); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", info.Mode().Perm())
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Credential != "spa_x" || back.Interval != cfg.Interval || *back.Collectors.Meminfo.Enabled {
		t.Fatalf("round trip lost data: %+v", back)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".agent.yaml.*"))
	if len(leftovers) != 0 {
		t.Fatalf("temp files left behind: %v", leftovers)
	}

	bad := cfg
	bad.Interval = 0
	if err := Save(path, bad); err == nil {
		t.Fatal("Save accepted an invalid config")
	}
	if again, _ := Load(path); again.Interval != cfg.Interval {
		t.Fatal("a refused Save changed the file")
	}
}

func TestLoadMissingFileSaysToEnrol(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.yaml"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "spindle-agent enroll") {
		t.Fatalf("unexpected: %v", err)
	}
}

// TestRetiredBlockSamplesStillParses: an agent.yaml written for an older agent keeps working,
// and the agent is told what replaced the section.
func TestRetiredBlockSamplesStillParses(t *testing.T) {
	cfg, err := Parse([]byte("collectors: {block_samples: {enabled: true, sample_every: 8, capacity: 4096}}"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Retired(); len(got) != 1 || !strings.Contains(got[0], "collectors.block_samples is retired") ||
		!strings.Contains(got[0], "collectors.mrc") {
		t.Fatalf("Retired() = %q", got)
	}
	for _, name := range cfg.EnabledCollectors(func(string) bool { return true }) {
		if name == "block_samples" {
			t.Fatal("a retired collector is enabled")
		}
	}
	// A config the agent writes itself (enroll) names no retired section.
	body, err := yaml.Marshal(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "block_samples") {
		t.Errorf("a fresh config carries the retired section:\n%s", body)
	}
}

func TestEBPFSettings(t *testing.T) {
	cfg, err := Parse([]byte("collectors: {page_cache: {top_files: 25}}"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.EBPF != "auto" || cfg.Collectors.PageCache.TopFiles != 25 || cfg.Retired() != nil {
		t.Fatalf("eBPF settings not read: %+v", cfg)
	}
	if why := cfg.WhyOff("page_cache"); !strings.Contains(why, "collectors.page_cache.enabled: false") {
		t.Errorf("WhyOff = %q", why)
	}
	for yaml, want := range map[string]string{
		"ebpf: maybe": `ebpf "maybe" is not one of auto, on, off`,
		"collectors: {page_cache: {top_files: 51}}": "collectors.page_cache.top_files 51 must be between 1 and 50",
	} {
		if _, err := Parse([]byte(yaml)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", yaml, err, want)
		}
	}
	off, err := Parse([]byte(`ebpf: "off"`))
	if err != nil {
		t.Fatal(err)
	}
	if why := off.WhyOff("block_latency"); !strings.Contains(why, "ebpf: off") {
		t.Errorf("WhyOff under ebpf: off = %q", why)
	}
}

func TestProofRunsAreReadUnderTheirOldNameBenchToo(t *testing.T) {
	cfg, err := Parse([]byte("bench:\n  paths: [/srv/proof]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.ProofRuns.Paths) != 1 || cfg.ProofRuns.Paths[0] != "/srv/proof" || cfg.LegacyBench != nil {
		t.Fatalf("bench.paths must become proof_runs.paths: %+v", cfg.ProofRuns)
	}
	cfg, err = Parse([]byte("proof_runs:\n  paths: [/srv/proof]\n"))
	if err != nil || len(cfg.ProofRuns.Paths) != 1 {
		t.Fatalf("proof_runs.paths: %v, %+v", err, cfg.ProofRuns)
	}
	if _, err := Parse([]byte("proof_runs:\n  paths: [/a]\nbench:\n  paths: [/b]\n")); err == nil || !strings.Contains(err.Error(), "keep proof_runs only") {
		t.Fatalf("both names: %v; want an error saying which to keep", err)
	}
	if _, err := Parse([]byte("proof_runs:\n  paths: [relative]\n")); err == nil || !strings.Contains(err.Error(), "proof_runs.paths") {
		t.Fatalf("a relative path: %v; want proof_runs.paths named", err)
	}
}
