package httpapi

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spindle-io/spindle/apps/gateway/internal/releases"
)

// What an operator on Fedora, RHEL or their rebuilds does with the .repo file the console shows
// (docs/install.md, "From the gateway's package repository (yum, dnf)"), with Debian's dnf
// against this gateway's handler on loopback serving the real .rpm (built by nfpm, as
// agent/build-dist.sh does): write the .repo, then let dnf fetch the key, check repomd.xml's
// signature (repo_gpgcheck), the metadata's and the package's SHA-256, and download
// spindle-agent. dnf runs in a temporary --installroot with its own reposdir, so the test
// leaves this machine alone; --downloadonly stops before rpm installs (this host has no rpm
// database, and the scriptlets are agent/packaging/linux's test). The downloaded package is
// checked with rpm -K, unpacked with rpm into a scratch root, and its agent run. A tampered repomd.xml and a tampered primary.xml.gz
// must be refused.
func TestDnfInstallsTheAgentFromTheGatewaysRepository(t *testing.T) {
	for _, tool := range []string{"dnf", "rpm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: this test needs Debian's dnf and rpm (scripts/setup.sh installs them)", tool)
		}
	}
	work := t.TempDir()
	dist := filepath.Join(work, "dist")
	rpmBuild(t, filepath.Join(dist, "0.9.7"), "0.9.7")
	catalogue := releases.New(dist, testSigningKey)
	if err := catalogue.Refresh(); err != nil {
		t.Fatal(err)
	}
	_, handler, err := newServer(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: "http://gateway.test:4318",
		SigningKey: testSigningKey, Releases: catalogue, AgentDistDir: dist, MaxBodyBytes: 1 << 20, MaxConcurrentWrites: 1, MaxQueuedWrites: 1})
	if err != nil {
		t.Fatal(err)
	}
	var tamper atomic.Value // a path (or suffix) whose body the "network" alters
	tamper.Store("\x00")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, tamper.Load().(string)) {
			handler.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		body := bytes.Replace(rec.Body.Bytes(), []byte("<revision>"), []byte("<revision>1"), 1)
		if strings.HasSuffix(r.URL.Path, ".gz") {
			body = append(body, 0)
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)

	// The .repo file, as docs/install.md and the console give it.
	repos := filepath.Join(work, "yum.repos.d")
	if err := os.MkdirAll(repos, 0o755); err != nil {
		t.Fatal(err)
	}
	repo := "[spindle]\nname=Spindle agent\nbaseurl=" + srv.URL + "/yum\nenabled=1\nrepo_gpgcheck=1\ngpgcheck=0\ngpgkey=" + srv.URL + "/yum/spindle-archive-keyring.asc\n"
	if err := os.WriteFile(filepath.Join(repos, "spindle.repo"), []byte(repo), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(work, "dnf.conf")
	if err := os.WriteFile(conf, []byte("[main]\nreposdir="+repos+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := 0
	dnf := func(args ...string) (string, error) {
		fresh++ // a new root each time: no metadata cached from the step before
		root := filepath.Join(work, "root", string(rune('a'+fresh)))
		opts := []string{"-y", "--config=" + conf, "--installroot=" + root, "--setopt=reposdir=" + repos, "--releasever=1",
			"--setopt=cachedir=" + filepath.Join(root, "cache"), "--disableplugin=*", "--noplugins"}
		cmd := exec.Command("dnf", append(opts, args...)...)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	downloads := filepath.Join(work, "downloads")
	if out, err := dnf("install", "--downloadonly", "--destdir="+downloads, "spindle-agent"); err != nil {
		t.Fatalf("dnf install --downloadonly spindle-agent from the gateway's repository: %v\n%s", err, out)
	}
	rpmFile := filepath.Join(downloads, "spindle-agent-0.9.7-1.x86_64.rpm")
	if out := run(t, work, "rpm", "-K", rpmFile); !strings.Contains(out, "digests OK") {
		t.Fatalf("rpm -K on the package dnf downloaded: %s", out)
	}
	root := filepath.Join(work, "extracted")
	run(t, work, "rpm", "-i", "--root", root, "--nodeps", "--noscripts", rpmFile)
	if out := run(t, work, filepath.Join(root, "usr/bin/spindle-agent"), "version"); !strings.Contains(out, "0.9.7") {
		t.Fatalf("the agent from the repository says %q, not 0.9.7", out)
	}

	// repomd.xml altered in transit: its signature no longer verifies, and dnf refuses it.
	tamper.Store("/yum/repodata/repomd.xml")
	if out, err := dnf("makecache"); err == nil || !strings.Contains(out, "Bad GPG signature") {
		t.Fatalf("dnf accepted a tampered repomd.xml (exit %v):\n%s", err, out)
	}
	// A primary.xml.gz that is not the one the signed repomd.xml names: refused too.
	tamper.Store("-primary.xml.gz")
	if out, err := dnf("makecache"); err == nil || !strings.Contains(out, "checksum doesn't match") {
		t.Fatalf("dnf accepted a tampered primary.xml.gz (exit %v):\n%s", err, out)
	}
}

// rpmBuild builds the agent at version and packs it into its .rpm with the packaging build
// itself (agent/packaging/linux: nfpm), so the repository is tested on the package users get.
func rpmBuild(t *testing.T, dir, version string) {
	t.Helper()
	bin := t.TempDir()
	agent, _ := filepath.Abs("../../../../agent")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", filepath.Join(bin, "spindle-agent-linux-amd64"), "./cmd/spindle-agent")
	cmd.Dir, cmd.Env = agent, append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the agent: %v\n%s", err, out)
	}
	out := t.TempDir()
	cmd = exec.Command("go", "run", ".", "-bin", bin, "-out", out, "-version", version, "-arch", "amd64")
	cmd.Dir = filepath.Join(agent, "packaging/linux")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the packages: %v\n%s", err, b)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "spindle-agent-" + version + "-1.x86_64.rpm"
	if err := os.Rename(filepath.Join(out, name), filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}
