package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/proofrun"
)

func TestProofRunCommandPrintsTheReportAndProgress(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"proof-run", "--profile", "fileserver", "--path", dir, "--size", "32MiB", "--duration", "1m",
		"--step", "1s", "--loads", "1x2", "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rep proofrun.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not a report: %v\n%s", err, stdout.String())
	}
	if !rep.Complete || len(rep.Steps) != 1 || rep.Steps[0].Off == nil || rep.Steps[0].Off.IOPS <= 0 {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(stderr.String(), "pass 1/1 (off) step 1/1") {
		t.Fatalf("no progress on stderr: %s", stderr.String())
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}

func TestProofRunCommandRejectsBadInputClearly(t *testing.T) {
	for args, want := range map[string]string{
		"--profile oltp --path /tmp --size lots":                           "--size",
		"--profile nope --path /tmp":                                       "unknown profile",
		"--profile oltp --path /tmp --loads 4xx":                           "--loads",
		"--profile oltp --path /tmp --ab --oracle /nonexistent":            "neither memory.max (cgroup v2) nor memory.limit_in_bytes",
		"--profile oltp --path /tmp --oracle /x":                           "--oracle compares against the off passes: add --ab",
		"--profile oltp --path /tmp --arms off,cache":                      "--arms is for the pgbench profile",
		"--profile pgbench --path /tmp --pg host=/x --arms off,cache --ab": "leave out --ab",
		"--profile pgbench --path /tmp --pg host=/x --arms cache,off":      "--arms starts with off",
		"--profile pgbench --path /tmp --pg host=/x --arms off,oracle":     "the oracle arm needs --oracle",
		"--profile pgbench --path /tmp --pg host=/x --arms off,turbo":      `unknown arm "turbo"`,
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"proof-run"}, strings.Fields(args)...), &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), want) {
			t.Errorf("proof-run %s: exit %d, stderr %q; want a failure naming %q", args, code, stderr.String(), want)
		}
	}
}
