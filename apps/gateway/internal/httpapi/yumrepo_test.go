package httpapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// What an operator on Fedora, RHEL or their rebuilds does with the lines the console shows
// (docs/install.md, "From the gateway's package repository (yum, dnf)"), with Debian's dnf
// against this gateway's handler on loopback serving the real .rpm (built by nfpm, as
// agent/build-dist.sh does): fetch the gateway's own .repo file, then let dnf fetch the key,
// check repomd.xml's signature (repo_gpgcheck), the metadata's and the package's SHA-256, and
// download spindle-agent. dnf runs in a temporary --installroot with its own reposdir, so the
// test leaves this machine alone; --downloadonly stops before rpm installs (this host has no rpm
// database, and the scriptlets are agent/packaging/linux's test). The downloaded package is
// checked with rpm -K, unpacked with rpm into a scratch root, and its agent run. A tampered
// repomd.xml and a tampered primary.xml.gz must be refused.
func TestDnfInstallsTheAgentFromTheGatewaysRepository(t *testing.T) {
	for _, tool := range []string{"dnf", "rpm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: this test needs Debian's dnf and rpm (scripts/setup.sh installs them)", tool)
		}
	}
	gw := newRepoGateway(t, rpmBuild, func(body []byte) []byte {
		return bytes.Replace(body, []byte("<revision>"), []byte("<revision>1"), 1)
	})
	work := gw.work

	// The .repo file, fetched as the console's dnf lines fetch it (install-command.ts,
	// dnfInstallCommands), into a scratch reposdir instead of /etc/yum.repos.d.
	repos := filepath.Join(work, "yum.repos.d")
	if err := os.MkdirAll(repos, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, work, "curl", "-fsSL", "-o", filepath.Join(repos, "spindle.repo"), gw.url+"/yum/spindle.repo")
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
	gw.tamper("/yum/repodata/repomd.xml")
	if out, err := dnf("makecache"); err == nil || !strings.Contains(out, "Bad GPG signature") {
		t.Fatalf("dnf accepted a tampered repomd.xml (exit %v):\n%s", err, out)
	}
	// A primary.xml.gz that is not the one the signed repomd.xml names: refused too.
	gw.tamper("-primary.xml.gz")
	if out, err := dnf("makecache"); err == nil || !strings.Contains(out, "checksum doesn't match") {
		t.Fatalf("dnf accepted a tampered primary.xml.gz (exit %v):\n%s", err, out)
	}
}

// rpmBuild builds the agent at version and packs it into its .rpm with the packaging build
// itself (agent/packaging/linux: nfpm), so the repository is tested on the package users get.
func rpmBuild(t *testing.T, dir, version string) {
	t.Helper()
	bin := t.TempDir()
	buildAgent(t, version, filepath.Join(bin, "spindle-agent-linux-amd64"))
	out := t.TempDir()
	cmd := exec.Command("go", "run", ".", "-bin", bin, "-out", out, "-version", version, "-arch", "amd64")
	cmd.Dir, _ = filepath.Abs("../../../../agent/packaging/linux")
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
