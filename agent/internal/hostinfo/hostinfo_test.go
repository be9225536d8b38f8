package hostinfo

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestMachineIDPrefersSystemFiles(t *testing.T) {
	dir := t.TempDir()
	etc := filepath.Join(dir, "machine-id")
	dbus := filepath.Join(dir, "dbus-machine-id")
	os.WriteFile(dbus, []byte("dbus-id\n"), 0o644)
	src := Sources{MachineIDFiles: []string{etc, dbus}, StateDir: filepath.Join(dir, "state")}
	info, err := Collect(src)
	if err != nil || info.MachineID != "dbus-id" {
		t.Fatalf("want the D-Bus id when /etc/machine-id is missing, got %q %v", info.MachineID, err)
	}
	os.WriteFile(etc, []byte("etc-id\n"), 0o644)
	if info, _ := Collect(src); info.MachineID != "etc-id" {
		t.Fatalf("want /etc/machine-id first, got %q", info.MachineID)
	}
}

func TestGeneratedMachineIDIsKept(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	src := Sources{MachineIDFiles: []string{"/nonexistent/machine-id"}, StateDir: state}
	first, err := Collect(src)
	if err != nil || len(first.MachineID) != 32 {
		t.Fatalf("generated id %q, %v", first.MachineID, err)
	}
	second, _ := Collect(src)
	if second.MachineID != first.MachineID {
		t.Fatalf("generated id changed between runs: %q then %q", first.MachineID, second.MachineID)
	}
}

func TestOSVersionFromOSRelease(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Join(dir, "os-release")
	os.WriteFile(rel, []byte("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"), 0o644)
	info, err := Collect(Sources{MachineIDFiles: nil, OSReleaseFiles: []string{filepath.Join(dir, "missing"), rel}, StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if info.OSVersion != "Debian GNU/Linux 12 (bookworm)" || info.OS != runtime.GOOS || info.Arch != runtime.GOARCH || info.Kernel == "" || info.Hostname == "" {
		t.Fatalf("%+v", info)
	}
}
