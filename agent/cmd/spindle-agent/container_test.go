//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// The agent.yaml the Helm chart renders for its sample values (infra/deploycheck keeps it in
// step with the chart): the agent's strict parser must accept every key of it.
const chartAgentYAML = "../../../infra/deploycheck/testdata/agent-sample.agent.yaml"

func TestTheChartsAgentYAMLParses(t *testing.T) {
	data, err := os.ReadFile(chartAgentYAML)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse(data)
	if err != nil {
		t.Fatalf("the chart's agent.yaml: %v", err)
	}
	// The enrolment lives on the node (the state hostPath), not in the ConfigMap.
	if filepath.Dir(cfg.EnrolmentFile) != cfg.StateDir || cfg.EnrolmentTokenFile == "" || cfg.HostRoot == "" {
		t.Errorf("enrolment_file %q outside state_dir %q, or no token file / host root: %+v", cfg.EnrolmentFile, cfg.StateDir, cfg)
	}
}

// The image's command line (infra/docker/agent.Dockerfile: ENTRYPOINT and CMD) is one this
// binary takes: with --help appended it parses and exits 0; a flag it lacked would exit 2.
func TestTheImagesCommandLineIsTheAgents(t *testing.T) {
	data, err := os.ReadFile("../../../infra/docker/agent.Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var entrypoint, cmd []string
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "ENTRYPOINT "); ok {
			entrypoint = execForm(t, rest)
		}
		if rest, ok := strings.CutPrefix(line, "CMD "); ok {
			cmd = execForm(t, rest)
		}
	}
	if len(entrypoint) != 1 || filepath.Base(entrypoint[0]) != "spindle-agent" || len(cmd) == 0 {
		t.Fatalf("ENTRYPOINT %v CMD %v", entrypoint, cmd)
	}
	var stderr bytes.Buffer
	if code := run(append(cmd, "--help"), io.Discard, &stderr); code != 0 {
		t.Fatalf("spindle-agent %v --help: exit %d\n%s", cmd, code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "-config") {
		t.Errorf("the help of %q does not list --config:\n%s", cmd[0], stderr.String())
	}
}

func execForm(t *testing.T, text string) []string {
	var argv []string
	if err := json.Unmarshal([]byte(text), &argv); err != nil {
		t.Fatalf("%s: not exec form: %v", text, err)
	}
	return argv
}

// A pod's first start enrols with the token from its Secret, named as the node, keyed on the
// host's machine id, and keeps the enrolment in the state directory; the pod's next start (a
// restart, a new image) finds it there and never asks the gateway again.
func TestAPodEnrolsOnceAndRejoinsAsTheSameServer(t *testing.T) {
	var mu sync.Mutex
	var requests []map[string]string
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]string
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		requests = append(requests, req)
		mu.Unlock()
		if req["token"] != "spe_pod" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":"bad token","reason":"invalid_token"}`)
			return
		}
		fmt.Fprint(w, `{"agentId":"a-node","serverId":"s-node","orgId":"o-1","credential":"spa_node","batchHwm":0}`)
	}))
	enrolments := func() []map[string]string {
		mu.Lock()
		defer mu.Unlock()
		return append([]map[string]string(nil), requests...)
	}
	dir := t.TempDir()
	hostRoot, state, secret := filepath.Join(dir, "host"), filepath.Join(dir, "state"), filepath.Join(dir, "secret")
	for _, d := range []string{filepath.Join(hostRoot, "etc"), state, secret} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(hostRoot, "etc", "machine-id"), "0123456789abcdef0123456789abcdef\n")
	configPath := filepath.Join(dir, "agent.yaml")
	agentYAML := fmt.Sprintf("gateway: %s\nstate_dir: %s\nenrolment_file: %s\nenrolment_token_file: %s\nhost_root: %s\n",
		gw.URL, state, filepath.Join(state, "enrolment.yaml"), filepath.Join(secret, "token"), hostRoot)
	writeFile(t, configPath, agentYAML)
	t.Setenv(hostinfo.HostnameEnv, "node-7")

	start := func() config.Config { // what `run` does at start (run.go)
		t.Helper()
		cfg, err := config.Load(configPath)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.RequireEnrolled(configPath) != nil && cfg.EnrolmentTokenFile != "" {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if cfg, err = waitForEnrolment(ctx, configPath, cfg, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatalf("no enrolment: %v", err)
			}
		}
		return cfg
	}
	writeFile(t, filepath.Join(secret, "token"), "spe_pod\n")
	first := start()
	if first.ServerID != "s-node" || first.Credential != "spa_node" {
		t.Fatalf("first start: %+v", first)
	}
	if got := enrolments(); len(got) != 1 || got[0]["hostname"] != "node-7" || got[0]["machineId"] != "0123456789abcdef0123456789abcdef" {
		t.Fatalf("enrolled as %v: want the node's name and the host's machine id", got)
	}
	if data, _ := os.ReadFile(configPath); string(data) != agentYAML {
		t.Errorf("agent.yaml (a ConfigMap) was rewritten:\n%s", data)
	}

	// The pod restarts; the Secret still holds a token (read-only in a pod), now expired.
	writeFile(t, filepath.Join(secret, "token"), "spe_expired\n")
	again := start()
	if again.ServerID != "s-node" || again.AgentID != "a-node" || again.Credential != "spa_node" || len(enrolments()) != 1 {
		t.Fatalf("after a restart: %+v, %d enrolments: want the same server without asking the gateway", again, len(enrolments()))
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
