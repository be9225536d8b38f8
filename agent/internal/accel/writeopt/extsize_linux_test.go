package writeopt

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/fiemap"
	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
)

// extentSizeHint reads a file's hint: 0 when it has none.
func extentSizeHint(t *testing.T, path string) uint32 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := getFsxattr(int(f.Fd()))
	if err != nil {
		t.Fatalf("FS_IOC_FSGETXATTR %s: %v", path, err)
	}
	if a.Xflags&fsXflagExtsize == 0 {
		return 0
	}
	return a.Extsize
}

// With write_optimization.extent_size_hint: first_window, on XFS the open gate gives a new log
// an extent size hint of its rule's first window (4 MiB here) before the application's first
// write, so what is written past its windows is allocated in whole, aligned units of it: a write
// at 6 MiB, past the first window, gets 4–8 MiB, one run with the window, not blocks from 6 MiB
// on. A file no rule matches and a log that had data before the agent saw it get no hint, and
// nothing is reported as a problem. Without the setting (the default) no file gets one. The same
// on ext4 is TestOpenGateReservesANewFileBeforeItsFirstWrite (no hint, no problem there).
func TestOpenGateGivesNewFilesOnXFSAnExtentSizeHint(t *testing.T) {
	dir := fiemaptest.MountXFS(t, 512<<20)
	old := filepath.Join(dir, "old.log")
	if err := os.WriteFile(old, make([]byte, 8<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	byDefault := gatedFeature(t, dir, FirstWriteAuto)
	unhinted := filepath.Join(dir, "default.log")
	openAsApplication(t, openerSpec{Appends: []string{unhinted}})
	if got, st := extentSizeHint(t, unhinted), byDefault.Stats(); got != 0 || st.ExtentSizeHintsSet != 0 || st.FirstWritesReserved != 1 {
		t.Errorf("by default: default.log has a hint of %d bytes (%d set, %d first windows); want none, and its first window",
			got, st.ExtentSizeHintsSet, st.FirstWritesReserved)
	}
	if err := byDefault.Close(); err != nil {
		t.Fatal(err)
	}

	f := gatedFeatureWith(t, dir, Config{FirstWrite: FirstWriteAuto, ExtentSizeHint: true})
	fresh, other := filepath.Join(dir, "new.log"), filepath.Join(dir, "notes.txt")
	openAsApplication(t, openerSpec{Appends: []string{fresh, other, old}})

	if got := extentSizeHint(t, fresh); got != 4<<20 {
		t.Errorf("new.log: extent size hint %d bytes, want 4 MiB (the rule's first window)", got)
	}
	for _, path := range []string{other, old} {
		if got := extentSizeHint(t, path); got != 0 {
			t.Errorf("%s: extent size hint %d bytes, want none", filepath.Base(path), got)
		}
	}
	if st := f.Stats(); st.ExtentSizeHintsSet != 1 || st.FirstWritesReserved != 1 || st.LastError != "" {
		t.Errorf("stats: %d hints set and %d first windows (want 1 and 1), last error %q",
			st.ExtentSizeHintsSet, st.FirstWritesReserved, st.LastError)
	}

	// Past the 4 MiB window: the agent's own write (the gate lets it through, and the feature's
	// loop is not running, so nothing reserves the next window).
	file, err := os.OpenFile(fresh, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if _, err := file.WriteAt(make([]byte, 8<<10), 6<<20); err != nil {
		t.Fatal(err)
	}
	mapped, err := fiemap.MappedFD(int(file.Fd()), fresh)
	if err != nil {
		t.Fatal(err)
	}
	want := []fiemap.Extent{{Logical: 0, Length: 8 << 20}}
	got := slices.Clone(mapped)
	for i := range got {
		got[i].Physical = 0
	}
	if !slices.Equal(got, want) {
		t.Errorf("new.log mapped %+v after a write at 6 MiB, want 0–8 MiB in one range (allocated in units of the hint)", mapped)
	}
}

// The capability lists the XFS file systems mounted, and is missing, with the reason, where
// none is.
func TestProbeExtentSizeHintListsTheXFSMounts(t *testing.T) {
	dir := fiemaptest.MountXFS(t, 512<<20)
	mounts, err := ProbeExtentSizeHint("/proc")
	if err != nil || !slices.Contains(mounts, dir) {
		t.Errorf("XFS mounted at %s: probe found %v, %v", dir, mounts, err)
	}

	proc := t.TempDir()
	if err := os.Mkdir(filepath.Join(proc, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	ext4Only := "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n" +
		"23 22 0:21 / /proc rw shared:2 - proc proc rw\n"
	if err := os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte(ext4Only), 0o644); err != nil {
		t.Fatal(err)
	}
	if mounts, err := ProbeExtentSizeHint(proc); !errors.Is(err, ErrUnsupported) || mounts != nil {
		t.Errorf("ext4 only: probe found %v, %v; want ErrUnsupported", mounts, err)
	}
	if _, err := ProbeExtentSizeHint(filepath.Join(proc, "missing")); err == nil || errors.Is(err, ErrUnsupported) {
		t.Errorf("no mountinfo: %v, want an error saying the mounts could not be listed", err)
	}
}
