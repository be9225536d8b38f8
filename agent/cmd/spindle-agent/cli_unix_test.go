//go:build !windows

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/status"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// TestBinaryEnrolRunStatus builds the real binary and drives it as an operator would:
// enroll, run until SIGTERM, status.
func TestBinaryEnrolRunStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "spindle-agent")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=7.7.7", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}

	var metricsPosts atomic.Int64
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/enroll":
			var req map[string]string
			json.NewDecoder(r.Body).Decode(&req)
			if req["agentVersion"] != "7.7.7" || req["token"] != "spe_ok" {
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprint(w, `{"error":"bad token","reason":"invalid_token"}`)
				return
			}
			fmt.Fprint(w, `{"agentId":"a-1","serverId":"s-1","orgId":"o-1","credential":"spa_cli","batchHwm":10}`)
		case "/v1/metrics":
			if r.Header.Get("Authorization") != "Bearer spa_cli" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			metricsPosts.Add(1)
		}
	}))

	// Pre-seed the settings the test needs; enroll keeps them and adds the credential.
	sys, _ := filepath.Abs("../../internal/collector/testdata/sys")
	proc, _ := filepath.Abs("../../internal/collector/testdata/proc-meminfo")
	cfgPath := filepath.Join(dir, "agent.yaml")
	cfg := config.Default()
	cfg.StateDir, cfg.ProcPath, cfg.SysPath, cfg.Interval = filepath.Join(dir, "state"), proc, sys, time.Second
	if err := config.Save(cfgPath, cfg); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(bin, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "spindle-agent 7.7.7" {
		t.Fatalf("version: %q %v", out, err)
	}
	if out, err := exec.Command(bin, "run", "--config", cfgPath).CombinedOutput(); err == nil || !strings.Contains(string(out), "not enrolled") {
		t.Fatalf("run before enrol: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "enroll", "--token", "spe_wrong", "--gateway", gw.URL, "--config", cfgPath).CombinedOutput(); err == nil || !strings.Contains(string(out), "create a new one") {
		t.Fatalf("enrol with a bad token: %v\n%s", err, out)
	}
	// The token on standard input, as the installer passes it: never on a command line.
	enrol := exec.Command(bin, "enroll", "--token-file", "-", "--gateway", gw.URL, "--config", cfgPath)
	enrol.Stdin = strings.NewReader("spe_ok\n")
	if out, err := enrol.CombinedOutput(); err != nil {
		t.Fatalf("enroll: %v\n%s", err, out)
	}

	var logs bytes.Buffer
	agent := exec.Command(bin, "run", "--config", cfgPath)
	agent.Stderr = &logs
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for metricsPosts.Load() < 2 {
		if time.Now().After(deadline) {
			agent.Process.Kill()
			t.Fatalf("no deliveries; agent log:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out, err := exec.Command(bin, "status", "--config", cfgPath).CombinedOutput(); err != nil || !strings.Contains(string(out), "healthy") {
		t.Fatalf("status while running: %v\n%s", err, out)
	}
	agent.Process.Signal(syscall.SIGTERM)
	if err := agent.Wait(); err != nil {
		t.Fatalf("agent exit: %v\n%s", err, logs.String())
	}

	out, err = exec.Command(bin, "status", "--config", cfgPath, "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var st status.File
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatal(err)
	}
	if !st.Stopped || st.AgentVersion != "7.7.7" || st.LastBatchSeq <= 10 || st.Delivery.LastDeliveredSeq != st.LastBatchSeq {
		t.Fatalf("status after SIGTERM (numbering must start above batchHwm 10 and the last batch be delivered): %+v", st)
	}
	if _, err := exec.Command(bin, "status", "--config", cfgPath).Output(); err == nil {
		t.Fatal("status of a stopped agent must exit non-zero")
	}
}
