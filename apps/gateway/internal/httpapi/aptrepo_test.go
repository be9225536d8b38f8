package httpapi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// What an operator does with the apt lines the console shows (docs/install.md, "From the
// gateway's package repository"), against this gateway's handler on loopback serving a release
// with a .deb of the real agent: fetch the key, add the signed-by source, apt-get update, fetch
// spindle-agent and run it, then apt-get install it on this host and purge it. apt is pointed at
// temporary sources, lists and cache (-o Dir::…) so the test leaves this machine's apt
// configuration alone; the install uses this host's dpkg database, under the lock that
// agent/packaging/linux/test-packages.sh also takes, because both install spindle-agent here and
// run beside each other in npm test. A tampered InRelease and a tampered Packages must be refused.
func TestAptInstallsTheAgentFromTheGatewaysRepository(t *testing.T) {
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing: this test needs Debian's apt and dpkg", tool)
		}
	}
	gw := newRepoGateway(t, debBuild, func(body []byte) []byte {
		body = bytes.Replace(body, []byte("Version: 0.9.7"), []byte("Version: 0.9.8"), 1)
		return bytes.Replace(body, []byte("Label: Spindle agent"), []byte("Label: Spindle agenT"), 1)
	})
	work := gw.work

	// The lines, as docs/install.md gives them (the key, then the source with signed-by).
	keyring := filepath.Join(work, "spindle-archive-keyring.gpg")
	run(t, work, "curl", "-fsSL", "-o", keyring, gw.url+"/apt/spindle-archive-keyring.gpg")
	sources := filepath.Join(work, "spindle.list")
	line := "deb [signed-by=" + keyring + "] " + gw.url + "/apt stable main\n"
	if err := os.WriteFile(sources, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"lists/partial", "cache/archives/partial", "parts"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	apt := func(args ...string) (string, error) {
		opts := []string{"-o", "Dir::Etc::SourceList=" + sources, "-o", "Dir::Etc::SourceParts=" + filepath.Join(work, "parts"),
			"-o", "Dir::State::Lists=" + filepath.Join(work, "lists"), "-o", "Dir::Cache=" + filepath.Join(work, "cache"),
			"-o", "APT::Sandbox::User=root", "-o", "Acquire::Languages=none", "-o", "APT::Architecture=" + runtime.GOARCH}
		cmd := exec.Command("apt-get", append(opts, args...)...)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := apt("update"); err != nil || strings.Contains(out, "W: ") || strings.Contains(out, "Err:") {
		t.Fatalf("apt-get update against the gateway's repository: %v\n%s", err, out)
	}
	if out, err := apt("download", "spindle-agent"); err != nil {
		t.Fatalf("apt-get download spindle-agent: %v\n%s", err, out)
	}
	deb := filepath.Join(work, "spindle-agent_0.9.7_"+runtime.GOARCH+".deb")
	root := filepath.Join(work, "root")
	run(t, work, "dpkg-deb", "-x", deb, root)
	if out := run(t, work, filepath.Join(root, "usr/bin/spindle-agent"), "version"); !strings.Contains(out, "0.9.7") {
		t.Fatalf("the agent from the repository says %q, not 0.9.7", out)
	}
	aptInstallOnThisHost(t, apt)

	// A Release whose signed text was altered in transit: apt refuses the repository.
	os.RemoveAll(filepath.Join(work, "lists"))
	os.MkdirAll(filepath.Join(work, "lists/partial"), 0o755)
	gw.tamper("/apt/dists/stable/InRelease")
	if out, err := apt("update"); err == nil || !strings.Contains(out, "BADSIG") {
		t.Fatalf("apt accepted a tampered InRelease (exit %v):\n%s", err, out)
	}
	// A Packages that does not match the signed Release's hash: refused too.
	gw.tamper("/apt/dists/stable/main/binary-" + runtime.GOARCH + "/Packages.gz")
	if out, err := apt("update"); err == nil || !strings.Contains(out, "File has unexpected size") && !strings.Contains(out, "Hash Sum mismatch") {
		t.Fatalf("apt accepted a tampered Packages:\n%v %s", err, out)
	}
}

// hostPackageLock is the lock every test that installs spindle-agent on this host holds while it
// does (agent/packaging/linux/test-packages.sh takes it with flock(1)).
const hostPackageLock = "/run/lock/spindle-agent-package-tests.lock"

// aptInstallOnThisHost runs `apt-get install spindle-agent` as the console's lines end, against
// this host's dpkg database, checks what dpkg installed, and purges it. Root only: dpkg writes
// /usr/bin and /var/lib/dpkg (npm test runs as root; elsewhere this part says it did not run).
func aptInstallOnThisHost(t *testing.T, apt func(args ...string) (string, error)) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Log("apt-get install NOT RUN: it installs on this host, which needs root")
		return
	}
	lock, err := os.OpenFile(hostPackageLock, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close() // which releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("lock %s: %v", hostPackageLock, err)
	}
	if out, err := exec.Command("dpkg-query", "-W", "spindle-agent").CombinedOutput(); err == nil {
		t.Fatalf("a spindle-agent is already installed on this host (%s); this test would remove it", strings.TrimSpace(string(out)))
	}
	purge := func() (string, error) { return apt("purge", "-y", "spindle-agent") }
	t.Cleanup(func() { _, _ = purge() })
	// apt waits for dpkg's own lock too, should anything else be installing.
	if out, err := apt("install", "-y", "-o", "DPkg::Lock::Timeout=300", "spindle-agent"); err != nil {
		t.Fatalf("apt-get install spindle-agent: %v\n%s", err, out)
	}
	if out := run(t, "/", "dpkg-query", "-W", "-f", "${Status} ${Version}", "spindle-agent"); out != "install ok installed 0.9.7" {
		t.Fatalf("dpkg says %q after apt-get install, not installed 0.9.7", out)
	}
	if out := run(t, "/", "/usr/bin/spindle-agent", "version"); !strings.Contains(out, "0.9.7") {
		t.Fatalf("the installed agent says %q, not 0.9.7", out)
	}
	if out, err := purge(); err != nil {
		t.Fatalf("apt-get purge spindle-agent: %v\n%s", err, out)
	}
	if _, err := os.Stat("/usr/bin/spindle-agent"); !os.IsNotExist(err) {
		t.Fatalf("apt-get purge left /usr/bin/spindle-agent (%v)", err)
	}
}

// debBuild builds the agent at version and packs it as spindle-agent_<version>_<arch>.deb with
// dpkg-deb (control.tar.gz, as nfpm writes it: agent/packaging/linux).
func debBuild(t *testing.T, dir, version string) {
	t.Helper()
	tree := filepath.Join(t.TempDir(), "pkg")
	if err := os.MkdirAll(filepath.Join(tree, "DEBIAN"), 0o755); err != nil {
		t.Fatal(err)
	}
	buildAgent(t, version, filepath.Join(tree, "usr/bin/spindle-agent"))
	control := "Package: spindle-agent\nVersion: " + version + "\nArchitecture: " + runtime.GOARCH +
		"\nMaintainer: Spindle <support@spindle.invalid>\nDescription: Spindle agent\n"
	if err := os.WriteFile(filepath.Join(tree, "DEBIAN/control"), []byte(control), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "dpkg-deb", "-Zgzip", "--root-owner-group", "--build", tree, filepath.Join(dir, "spindle-agent_"+version+"_"+runtime.GOARCH+".deb"))
}
