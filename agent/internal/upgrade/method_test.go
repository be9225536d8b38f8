package upgrade

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// packagedBinary lays out a package's files under a scratch root: /usr/bin/spindle-agent and, when
// method is not empty, /usr/lib/spindle-agent/install-method holding it.
func packagedBinary(t *testing.T, method string) string {
	t.Helper()
	root := t.TempDir()
	exe := filepath.Join(root, "usr", "bin", "spindle-agent")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	if method != "" {
		file := filepath.Join(root, "usr", "lib", "spindle-agent", "install-method")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(method+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return exe
}

func withDpkgList(t *testing.T, listed ...string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spindle-agent.list")
	if err := os.WriteFile(path, []byte("/.\n/usr\n/usr/bin\n"+strings.Join(listed, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := dpkgFileList
	dpkgFileList = path
	t.Cleanup(func() { dpkgFileList = old })
}

func TestAPackagedAgentKnowsItsPackageManager(t *testing.T) {
	t.Setenv(InstallMethodEnv, "")
	withDpkgList(t)
	if got := InstallMethod(packagedBinary(t, "rpm")); got != "rpm" {
		t.Fatalf("the .rpm's install-method file: got %q", got)
	}
	if got := InstallMethod(packagedBinary(t, "deb")); got != "deb" {
		t.Fatalf("the .deb's install-method file: got %q", got)
	}
	t.Setenv(InstallMethodEnv, "kubernetes")
	if got := InstallMethod(packagedBinary(t, "deb")); got != "kubernetes" {
		t.Fatalf("the image's environment comes first: got %q", got)
	}
}

func TestABinaryDpkgListsIsDpkgsWithoutTheFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("dpkg runs on Linux")
	}
	t.Setenv(InstallMethodEnv, "")
	exe := packagedBinary(t, "")
	withDpkgList(t, "/usr/lib/spindle-agent", exe)
	if got := InstallMethod(exe); got != "deb" {
		t.Fatalf("listed by dpkg: got %q", got)
	}
	withDpkgList(t, "/usr/bin/spindle-agent-other")
	if got := InstallMethod(exe); got != "script" {
		t.Fatalf("installed by install.sh: got %q", got)
	}
}

func TestAPackageManagedAgentRefusesWithTheCommandForThatVersion(t *testing.T) {
	deb := refusalFor("deb", manualHint("deb"), "1.4.2")
	if !strings.Contains(deb, "managed by apt") || !strings.Contains(deb, "apt-get install spindle-agent=1.4.2") {
		t.Fatalf("deb: %q", deb)
	}
	rpm := refusalFor("rpm", manualHint("rpm"), "1.4.2")
	if !strings.Contains(rpm, "managed by rpm") || !strings.Contains(rpm, "dnf install spindle-agent-1.4.2") || !strings.Contains(rpm, "/download/1.4.2/") {
		t.Fatalf("rpm: %q", rpm)
	}
	if got := refusalFor("kubernetes", manualHint("kubernetes"), "1.4.2"); !strings.Contains(got, "helm upgrade") {
		t.Fatalf("kubernetes: %q", got)
	}
	if !strings.Contains(manualHint("deb"), "apt-get install --only-upgrade spindle-agent") {
		t.Fatalf("the console's line for a .deb agent: %q", manualHint("deb"))
	}
}
