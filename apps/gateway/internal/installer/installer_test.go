package installer

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
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
		--token-file) token=$(cat "$2") ;;
		--gateway) gateway=$2 ;;
		--config) config=$2 ;;
		--state-dir) state_dir=$2 ;;
		esac
		shift 2
	done
	# Like the real agent, keep what the config already holds and add the enrolment.
	printf 'state_dir: %s\ngateway: %s\ncredential: spa_fakecredential\ntoken_seen: %s\n' "$state_dir" "$gateway" "$token" >>"$config"
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
	return runScriptStdin(t, script, prefix, env, "", args...)
}

// runScriptStdin is runScript with stdin, as the one-liner pipes the token in.
func runScriptStdin(t *testing.T, script, prefix string, env []string, stdin string, args ...string) scriptRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), "install.sh")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", append([]string{path}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	if prefix != "" {
		cmd.Env = append(cmd.Env, "SPINDLE_PREFIX="+prefix)
	}
	output, err := cmd.CombinedOutput()
	return scriptRun{output: string(output), err: err}
}

// testKey stands for the gateway's signing key; fake gateways sign their SHA256SUMS with it.
var testKey = func() signing.Key {
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return signing.New(private)
}()

func render(t *testing.T, url string) string {
	t.Helper()
	script, err := Render(url, testKey.PublicKeyPEM())
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
	if help.err != nil || !strings.Contains(help.output, `script=$(curl -fsSL https://spindle.example.com/install.sh) &&`) ||
		!strings.Contains(help.output, `printf '%s\n' spe_... | sh -c "$script" spindle-install --token-stdin`) ||
		!strings.Contains(help.output, prefix+"/etc/spindle/agent.yaml") {
		t.Fatalf("--help: %v\n%s", help.err, help.output)
	}
	for _, tt := range []struct {
		args  []string
		want  string
		stdin string
	}{
		{nil, "an enrolment token is required", ""},
		{[]string{"--token", "spe_abc"}, "not accepted on the command line", ""},
		{[]string{"--token=spe_abc"}, "not accepted on the command line", ""},
		{[]string{"--token-file"}, "--token-file needs a file name", ""},
		{[]string{"--token-file", "/nonexistent"}, "cannot read '/nonexistent'", ""},
		{[]string{"--token-stdin"}, "nothing on standard input", ""},
		{[]string{"--bogus"}, "unknown option '--bogus'", ""},
		{[]string{"--token-stdin"}, "not an enrolment token", "hunter2\n"},
		{[]string{"--token-stdin", "--gateway", "ftp://x"}, "must be an https:// URL", "spe_x\n"},
		{[]string{"--token-stdin", "--gateway", "http://spindle.example.com"}, "refusing the plain-http gateway", "spe_x\n"},
		{[]string{"--token-stdin", "--gateway", "http://10.0.0.1:4318"}, "--allow-http", "spe_x\n"},
	} {
		run := runScriptStdin(t, script, prefix, nil, tt.stdin, tt.args...)
		if run.err == nil || !strings.Contains(run.output, tt.want) {
			t.Errorf("%v: err %v, output %q; want a failure saying %q", tt.args, run.err, run.output, tt.want)
		}
	}
	if entries, _ := os.ReadDir(prefix); len(entries) != 0 {
		t.Fatalf("argument errors left files in the prefix: %v", entries)
	}
}

// A user who is not root, on a host without sudo, is told what to do before anything happens.
func TestRefusesToRunWithoutRootOrSudo(t *testing.T) {
	// Piped into sh, as the uninstall line does, on a PATH with what the script needs but no sudo.
	bin, err := os.MkdirTemp("", "installer-path-") // not below t.TempDir(), which only its owner may enter
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	for _, tool := range []string{"id", "sh"} {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "sh"), "-s", "--", "--uninstall")
	cmd.Stdin = strings.NewReader(render(t, "https://spindle.example.com"))
	cmd.Env = []string{"PATH=" + bin}
	cmd.Dir = "/"
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	output, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(output), "this user is not root and sudo is not installed: run the same command as root") {
		t.Fatalf("err %v, output %q", err, output)
	}
}

// fakeResolver puts a getent on PATH that resolves every name to addresses, as
// `getent ahosts` prints them, so the gateway's name resolution can be tested on any host.
func fakeResolver(t *testing.T, addresses ...string) []string {
	t.Helper()
	bin := t.TempDir()
	var lines strings.Builder
	for _, address := range addresses {
		fmt.Fprintf(&lines, "%s STREAM gw.test\n%s DGRAM\n", address, address)
	}
	getent := "#!/bin/sh\n[ \"$1\" = ahosts ] || exit 2\nprintf '" + strings.ReplaceAll(lines.String(), "\n", "\\n") + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "getent"), []byte(getent), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
}

// An http:// gateway whose name resolves only to loopback addresses is this host (the default
// `npm start` gateway, http://<hostname>:4318); one that resolves anywhere else needs --allow-http.
func TestPlainHTTPGatewayByName(t *testing.T) {
	script := render(t, "http://gw.test:1")
	for _, tt := range []struct {
		name      string
		addresses []string
		args      []string
		want      string
	}{
		{"loopback only", []string{"127.0.1.1", "::1"}, nil, "could not download http://gw.test:1/download/"},
		{"IPv4-mapped loopback", []string{"::ffff:127.0.0.1"}, nil, "could not download http://gw.test:1/download/"},
		{"another host", []string{"10.0.0.7"}, nil, "refusing the plain-http gateway 'http://gw.test:1' on another host"},
		{"loopback and another", []string{"127.0.0.1", "10.0.0.7"}, nil, "refusing the plain-http gateway"},
		{"does not resolve", nil, nil, "refusing the plain-http gateway"},
		{"another host, allowed", []string{"10.0.0.7"}, []string{"--allow-http"}, "could not download http://gw.test:1/download/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := runScriptStdin(t, script, t.TempDir(), fakeResolver(t, tt.addresses...), "spe_x\n", append([]string{"--token-stdin"}, tt.args...)...)
			if run.err == nil || !strings.Contains(run.output, tt.want) {
				t.Fatalf("err %v, output %q; want %q", run.err, run.output, tt.want)
			}
		})
	}
}

// fakeGateway serves the fake agent for every download, with its sum in SHA256SUMS signed by
// testKey, and records the paths asked for.
func fakeGateway(t *testing.T) (url string, downloads func() []string) {
	return fakeGatewayServing(t, fakeAgent, fakeAgent)
}

// fakeGatewayServing serves `served` as the binary and lists the sum of `listed`.
func fakeGatewayServing(t *testing.T, served, listed string) (url string, downloads func() []string) {
	return fakeDistribution{served: served, listed: listed}.serve(t)
}

// fakeDistribution is what a gateway serves under /download, and how an attacker may have
// changed it after the gateway signed SHA256SUMS.
type fakeDistribution struct {
	served, listed string // the binary served; the binary whose sum SHA256SUMS lists
	// afterSigning changes SHA256SUMS after it was signed; signature changes the signature.
	afterSigning func(sums []byte) []byte
	signature    func(sums, sig []byte) []byte
}

func (d fakeDistribution) serve(t *testing.T) (url string, downloads func() []string) {
	t.Helper()
	listedSum := sha256.Sum256([]byte(d.listed))
	sums := []byte(fmt.Sprintf("%s  spindle-agent-linux-%s\n", hex.EncodeToString(listedSum[:]), goArch()))
	sig := testKey.Sign(sums)
	if d.afterSigning != nil {
		sums = d.afterSigning(sums)
	}
	if d.signature != nil {
		sig = d.signature(sums, sig)
	}
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		switch {
		case r.URL.Path == "/download/SHA256SUMS":
			_, _ = w.Write(sums)
		case r.URL.Path == "/download/SHA256SUMS.sig":
			_, _ = w.Write(sig)
		case strings.HasPrefix(r.URL.Path, "/download/spindle-agent-linux-"):
			_, _ = w.Write([]byte(d.served))
		default:
			http.NotFound(w, r)
		}
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

	first := runScriptStdin(t, script, prefix, env, token+"\n", "--token-stdin")
	if first.err != nil {
		t.Fatalf("install: %v\n%s", first.err, first.output)
	}
	binary := filepath.Join(prefix, "usr/local/bin/spindle-agent")
	config := filepath.Join(prefix, "etc/spindle/agent.yaml")
	if mode(t, binary) != 0o755 || mode(t, filepath.Dir(config)) != 0o700 || mode(t, config) != 0o600 ||
		mode(t, filepath.Join(prefix, "var/lib/spindle")) != 0o700 {
		t.Fatalf("modes: binary %v, config dir %v, config %v", mode(t, binary), mode(t, filepath.Dir(config)), mode(t, config))
	}
	if got := downloads(); len(got) != 3 || got[0] != "/download/spindle-agent-linux-"+goArch() || got[1] != "/download/SHA256SUMS" ||
		got[2] != "/download/SHA256SUMS.sig" {
		t.Fatalf("downloads = %v", got)
	}
	calls, _ := os.ReadFile(agentLog)
	wantCall := "enroll --token-file - --gateway " + gatewayURL + " --config " + config + " --state-dir " + filepath.Join(prefix, "var/lib/spindle") + "\n"
	if string(calls) != wantCall {
		t.Fatalf("agent calls = %q, want %q", calls, wantCall)
	}
	written, _ := os.ReadFile(config)
	if !strings.Contains(string(written), "state_dir: "+filepath.Join(prefix, "var/lib/spindle")+"\n") ||
		!strings.Contains(string(written), "credential: spa_fakecredential") ||
		!strings.Contains(string(written), "token_seen: "+token+"\n") {
		t.Fatalf("the config does not point the agent at the prefix's state directory:\n%s", written)
	}
	if !strings.Contains(first.output, binary+" run --config "+config) || !strings.Contains(first.output, "nothing was started") {
		t.Fatalf("below SPINDLE_PREFIX the installer must say how to run the agent:\n%s", first.output)
	}
	if _, err := os.Stat(filepath.Join(prefix, "etc/systemd/system/spindle-agent.service")); !os.IsNotExist(err) {
		t.Fatal("a systemd unit was written below SPINDLE_PREFIX")
	}

	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	second := runScript(t, script, prefix, env, "--token-file", tokenFile)
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
	run := runScriptStdin(t, render(t, srv.URL), prefix, nil, "spe_abcdefghijklmnopqrstuvwxyz\n", "--token-stdin")
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

// A binary whose sum does not match SHA256SUMS (tampered with in transit or on the gateway's
// disk) is never run, not even for "version", and nothing is installed.
func TestTamperedDownloadIsNeverRun(t *testing.T) {
	tampered := strings.Replace(fakeAgent, "set -eu", "set -eu\necho executed >>\"$FAKE_AGENT_LOG.ran\"", 1)
	gatewayURL, _ := fakeGatewayServing(t, tampered, fakeAgent)
	prefix := t.TempDir()
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	run := runScriptStdin(t, render(t, gatewayURL), prefix, []string{"FAKE_AGENT_LOG=" + agentLog},
		"spe_abcdefghijklmnopqrstuvwxyz\n", "--token-stdin")
	if run.err == nil || !strings.Contains(run.output, "but the gateway lists") {
		t.Fatalf("err %v\n%s", run.err, run.output)
	}
	if _, err := os.Stat(agentLog + ".ran"); !os.IsNotExist(err) {
		t.Fatal("the tampered binary was executed")
	}
	if entries, _ := os.ReadDir(filepath.Join(prefix, "usr/local/bin")); len(entries) != 0 {
		t.Fatalf("a tampered download left %v", entries)
	}
}

// installTampered runs the installer against d and returns its output; a binary that was run
// leaves a mark, and whatever it installed is reported.
func installTampered(t *testing.T, d fakeDistribution, args ...string) (run scriptRun, ran bool, installed []os.DirEntry) {
	t.Helper()
	gatewayURL, _ := d.serve(t)
	prefix := t.TempDir()
	agentLog := filepath.Join(t.TempDir(), "agent.log")
	run = runScriptStdin(t, render(t, gatewayURL), prefix, []string{"FAKE_AGENT_LOG=" + agentLog},
		"spe_abcdefghijklmnopqrstuvwxyz\n", append([]string{"--token-stdin"}, args...)...)
	_, err := os.Stat(agentLog + ".ran")
	installed, _ = os.ReadDir(filepath.Join(prefix, "usr/local/bin"))
	return run, err == nil, installed
}

// markingAgent is the fake agent that leaves a mark when it runs at all.
var markingAgent = strings.Replace(fakeAgent, "set -eu", "set -eu\necho executed >>\"$FAKE_AGENT_LOG.ran\"", 1)

// An attacker who controls the gateway's download directory, or the path to it, replaces the
// binary and SHA256SUMS together; the signature over the sums, made with a key the attacker
// does not hold, gives them away. The real script runs against each tampering, and never runs
// the binary or installs anything.
func TestTamperedSumsOrSignatureAreRefused(t *testing.T) {
	otherKey := func() signing.Key {
		_, private, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return signing.New(private)
	}()
	for _, tt := range []struct {
		name string
		dist fakeDistribution
	}{
		{"binary and sums replaced", fakeDistribution{served: markingAgent, listed: fakeAgent,
			afterSigning: func([]byte) []byte {
				sum := sha256.Sum256([]byte(markingAgent))
				return []byte(fmt.Sprintf("%s  spindle-agent-linux-%s\n", hex.EncodeToString(sum[:]), goArch()))
			}}},
		{"signature altered", fakeDistribution{served: markingAgent, listed: markingAgent,
			signature: func(_, sig []byte) []byte { sig = append([]byte(nil), sig...); sig[10] ^= 1; return sig }}},
		{"signed with another key", fakeDistribution{served: markingAgent, listed: markingAgent,
			signature: func(sums, _ []byte) []byte { return otherKey.Sign(sums) }}},
		{"no signature", fakeDistribution{served: markingAgent, listed: markingAgent,
			signature: func([]byte, []byte) []byte { return nil }}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run, ran, installed := installTampered(t, tt.dist)
			if run.err == nil || !strings.Contains(run.output, "does not match the gateway key this installer carries") {
				t.Fatalf("err %v\n%s", run.err, run.output)
			}
			if ran || len(installed) != 0 {
				t.Fatalf("after a bad signature the binary ran (%v) or files were left: %v", ran, installed)
			}
		})
	}
}

// The operator can skip the signature check, but only by saying so; the sums are still checked.
func TestSkipSignatureCheckOnlyWhenAsked(t *testing.T) {
	unsigned := fakeDistribution{served: fakeAgent, listed: fakeAgent, signature: func([]byte, []byte) []byte { return []byte("x") }}
	run, _, installed := installTampered(t, unsigned, "--skip-signature-check")
	if run.err != nil || !strings.Contains(run.output, "not checking the gateway's signature") || len(installed) != 1 {
		t.Fatalf("err %v, installed %v\n%s", run.err, installed, run.output)
	}
	run, ran, installed := installTampered(t, fakeDistribution{served: markingAgent, listed: fakeAgent}, "--skip-signature-check")
	if run.err == nil || !strings.Contains(run.output, "but the gateway lists") || ran || len(installed) != 0 {
		t.Fatalf("without the signature check a binary not matching SHA256SUMS must still be refused: err %v, ran %v, installed %v\n%s",
			run.err, ran, installed, run.output)
	}
}
