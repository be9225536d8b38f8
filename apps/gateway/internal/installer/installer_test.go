package installer

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeAgent stands in for spindle-agent: it answers "version" and records "enroll", writing
// a config the way the real agent does (gateway and credential).
const fakeAgent = `#!/bin/sh
set -eu
case "$1" in
version) echo "spindle-agent 9.9.9-test" ;;
enroll)
	shift
	echo "enroll $*" >>"$FAKE_AGENT_LOG"
	while [ $# -gt 0 ]; do
		case "$1" in
		--token) token=$2 ;;
		--gateway) gateway=$2 ;;
		--config) config=$2 ;;
		--state-dir) state_dir=$2 ;;
		esac
		shift 2
	done
	# Like the real agent, keep what the config already holds and add the enrolment.
	printf 'state_dir: %s\ngateway: %s\ncredential: spa_fakecredential\n' "$state_dir" "$gateway" >>"$config"
	;;
*) exit 64 ;;
esac
`

type scriptRun struct {
	output string
	err    error
}

// runScript runs the rendered installer with sh (dash on Debian) below prefix.
func runScript(t *testing.T, script, prefix string, env []string, args ...string) scriptRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), "install.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", append([]string{path}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if prefix != "" {
		cmd.Env = append(cmd.Env, "SPINDLE_PREFIX="+prefix)
	}
	output, err := cmd.CombinedOutput()
	return scriptRun{output: string(output), err: err}
}

func render(t *testing.T, url string) string {
	t.Helper()
	script, err := Render(url)
	if err != nil {
		t.Fatal(err)
	}
	return string(script)
}

func TestRenderedScriptIsValidShell(t *testing.T) {
	script := render(t, "https://spindle.example.com")
	if !strings.Contains(script, "DEFAULT_GATEWAY='https://spindle.example.com'") {
		t.Fatal("the public URL is not filled in")
	}
	path := filepath.Join(t.TempDir(), "install.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if output, err := exec.Command("sh", "-n", path).CombinedOutput(); err != nil {
		t.Fatalf("sh -n: %v\n%s", err, output)
	}
	if shellcheck, err := exec.LookPath("shellcheck"); err == nil {
		if output, err := exec.Command(shellcheck, "-s", "sh", path).CombinedOutput(); err != nil {
			t.Fatalf("shellcheck: %v\n%s", err, output)
		}
	}
}

func TestShellQuoteSurvivesQuotes(t *testing.T) {
	if got := shellQuote(`it's`); got != `'it'\''s'` {
		t.Fatalf("shellQuote = %s", got)
	}
}

func TestHelpAndArgumentErrors(t *testing.T) {
	script := render(t, "https://spindle.example.com")
	prefix := t.TempDir()

	help := runScript(t, script, prefix, nil, "--help")
	if help.err != nil || !strings.Contains(help.output, "curl -fsSL https://spindle.example.com/install.sh | sudo sh -s -- --token") ||
		!strings.Contains(help.output, prefix+"/etc/spindle/agent.yaml") {
		t.Fatalf("--help: %v\n%s", help.err, help.output)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "--token is required"},
		{[]string{"--token"}, "--token needs a value"},
		{[]string{"--bogus"}, "unknown option '--bogus'"},
		{[]string{"--token", "hunter2"}, "not an enrolment token"},
		{[]string{"--token", "spe_x", "--gateway", "ftp://x"}, "must be an http:// or https:// URL"},
	} {
		run := runScript(t, script, prefix, nil, tt.args...)
		if run.err == nil || !strings.Contains(run.output, tt.want) {
			t.Errorf("%v: err %v, output %q; want a failure saying %q", tt.args, run.err, run.output, tt.want)
		}
	}
	if entries, _ := os.ReadDir(prefix); len(entries) != 0 {
		t.Fatalf("argument errors left files in the prefix: %v", entries)
	}
}

func TestRefusesToRunWithoutRoot(t *testing.T) {
	// Piped into sh, as the one-liner does.
	cmd := exec.Command("sh", "-s", "--", "--token", "spe_abcdefghijklmnopqrstuvwxyz")
	cmd.Stdin = strings.NewReader(render(t, "https://spindle.example.com"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Dir = "/"
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	output, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(output), "must run as root") {
		t.Fatalf("err %v, output %q", err, output)
	}
}

// fakeGateway serves the fake agent for every download and records the paths asked for.
func fakeGateway(t *testing.T) (url string, downloads func() []string) {
	t.Helper()
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		if !strings.HasPrefix(r.URL.Path, "/download/spindle-agent-linux-") {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(fakeAgent))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...)
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func TestInstallTwiceThenUninstall(t *testing.T) {
	gatewayURL, downloads := fakeGateway(t)
	script := render(t, gatewayURL)
	prefix := t.TempDir()
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	env := []string{"FAKE_AGENT_LOG=" + agentLog}
	const token = "spe_abcdefghijklmnopqrstuvwxyz"

	first := runScript(t, script, prefix, env, "--token", token)
	if first.err != nil {
		t.Fatalf("install: %v\n%s", first.err, first.output)
	}
	binary := filepath.Join(prefix, "usr/local/bin/spindle-agent")
	config := filepath.Join(prefix, "etc/spindle/agent.yaml")
	if mode(t, binary) != 0o755 || mode(t, filepath.Dir(config)) != 0o700 || mode(t, config) != 0o600 ||
		mode(t, filepath.Join(prefix, "var/lib/spindle")) != 0o700 {
		t.Fatalf("modes: binary %v, config dir %v, config %v", mode(t, binary), mode(t, filepath.Dir(config)), mode(t, config))
	}
	if got := downloads(); len(got) != 1 || got[0] != "/download/spindle-agent-linux-"+goArch() {
		t.Fatalf("downloads = %v", got)
	}
	calls, _ := os.ReadFile(agentLog)
	wantCall := "enroll --token " + token + " --gateway " + gatewayURL + " --config " + config + " --state-dir " + filepath.Join(prefix, "var/lib/spindle") + "\n"
	if string(calls) != wantCall {
		t.Fatalf("agent calls = %q, want %q", calls, wantCall)
	}
	written, _ := os.ReadFile(config)
	if !strings.Contains(string(written), "state_dir: "+filepath.Join(prefix, "var/lib/spindle")+"\n") ||
		!strings.Contains(string(written), "credential: spa_fakecredential") {
		t.Fatalf("the config does not point the agent at the prefix's state directory:\n%s", written)
	}
	if !strings.Contains(first.output, binary+" run --config "+config) {
		t.Fatalf("without systemd the installer must say how to run the agent:\n%s", first.output)
	}
	if _, err := os.Stat(filepath.Join(prefix, "etc/systemd/system/spindle-agent.service")); !os.IsNotExist(err) {
		t.Fatal("a systemd unit was written below SPINDLE_PREFIX")
	}

	second := runScript(t, script, prefix, env, "--token", token)
	if second.err != nil || !strings.Contains(second.output, "already enrolled") {
		t.Fatalf("second install: %v\n%s", second.err, second.output)
	}
	if calls, _ := os.ReadFile(agentLog); string(calls) != wantCall {
		t.Fatalf("the second run enrolled again: %q", calls)
	}

	for attempt := 1; attempt <= 2; attempt++ {
		run := runScript(t, script, prefix, nil, "--uninstall")
		if run.err != nil || !strings.Contains(run.output, "removed") {
			t.Fatalf("uninstall %d: %v\n%s", attempt, run.err, run.output)
		}
		for _, path := range []string{binary, filepath.Dir(config), filepath.Join(prefix, "var/lib/spindle")} {
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("uninstall %d left %s", attempt, path)
			}
		}
	}
}

func TestFailedDownloadLeavesNothingBehind(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	prefix := t.TempDir()
	run := runScript(t, render(t, srv.URL), prefix, nil, "--token", "spe_abcdefghijklmnopqrstuvwxyz")
	if run.err == nil || !strings.Contains(run.output, "could not download") {
		t.Fatalf("err %v\n%s", run.err, run.output)
	}
	entries, _ := os.ReadDir(filepath.Join(prefix, "usr/local/bin"))
	if len(entries) != 0 {
		t.Fatalf("a failed download left %v", entries)
	}
}

func goArch() string {
	out, _ := exec.Command("uname", "-m").Output()
	if strings.TrimSpace(string(out)) == "aarch64" {
		return "arm64"
	}
	return "amd64"
}
