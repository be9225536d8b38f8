// Package fiemaptest makes fragmented files on purpose and counts their extents with
// e2fsprogs' filefrag, for the tests of the FIEMAP counter, the fragmentation scanner and write
// optimisation; it loop-mounts fresh ext4 and XFS images for them.
package fiemaptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// NeedRoot skips the test unless it runs as root; with CI=true it fails instead (CI runs as
// root here, and a skip would hide a broken test).
func NeedRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s needs root (CI runs as root)", why)
	}
	t.Skipf("%s needs root: run go test as root", why)
}

// NeedTool skips (fails with CI=true) when a command the test compares against is missing.
func NeedTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		pkg := "e2fsprogs"
		if strings.HasPrefix(name, "mkfs.xfs") || strings.HasPrefix(name, "xfs_") {
			pkg = "xfsprogs"
		}
		message := fmt.Sprintf("%s is missing: apt-get install -y %s (bash scripts/setup.sh --for-tests installs it)", name, pkg)
		if os.Getenv("CI") == "true" {
			t.Fatal(message)
		}
		t.Skip(message)
	}
}

// MountExt4 loop-mounts a fresh ext4 image of sizeBytes (kept on /dev/shm, so fsync is cheap)
// on a new temporary directory; the test's cleanup unmounts it and removes the image.
func MountExt4(t *testing.T, sizeBytes int64) string {
	t.Helper()
	dir := t.TempDir()
	MountExt4At(t, dir, sizeBytes)
	return dir
}

// MountExt4At is MountExt4 on an existing empty directory.
func MountExt4At(t *testing.T, dir string, sizeBytes int64) {
	t.Helper()
	mountImage(t, dir, sizeBytes, "mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0")
}

// MountXFS loop-mounts a fresh XFS image of sizeBytes (mkfs.xfs defaults: 4 allocation groups
// below 16 GiB) on a new temporary directory, as MountExt4 does; it needs xfsprogs.
func MountXFS(t *testing.T, sizeBytes int64) string {
	t.Helper()
	dir := t.TempDir()
	mountImage(t, dir, sizeBytes, "mkfs.xfs", "-q", "-f")
	return dir
}

// mountImage makes a sparse image of sizeBytes on /dev/shm, formats it with mkfs and its
// arguments (the image's path is appended) and loop-mounts it on dir until the test ends.
func mountImage(t *testing.T, dir string, sizeBytes int64, mkfs string, args ...string) {
	t.Helper()
	NeedRoot(t, "mounting a file system image")
	NeedTool(t, mkfs)
	image, err := os.CreateTemp("/dev/shm", "spindle-fiemap-*.img")
	if err != nil {
		t.Fatal(err)
	}
	image.Close()
	t.Cleanup(func() { os.Remove(image.Name()) })
	if err := os.Truncate(image.Name(), sizeBytes); err != nil {
		t.Fatal(err)
	}
	run(t, mkfs, append(args, image.Name())...)
	run(t, "mount", "-o", "loop", image.Name(), dir)
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
}

// Interleave grows every file in paths by appends of blockBytes, round-robin, fsyncing each
// append, until each has blocks of them: the allocator hands out space in write order, so
// the files end up interleaved on disk, as concurrently growing database logs do.
func Interleave(t *testing.T, paths []string, blocks, blockBytes int) {
	t.Helper()
	files := make([]*os.File, len(paths))
	for i, p := range paths {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files[i] = f
	}
	block := make([]byte, blockBytes)
	for b := range blocks {
		for i, f := range files {
			block[0], block[1] = byte(b), byte(i)
			if _, err := f.Write(block); err != nil {
				t.Fatal(err)
			}
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

var extentsFound = regexp.MustCompile(`: (\d+) extents? found`)

// Filefrag is e2fsprogs' count of the file's extents.
func Filefrag(t *testing.T, path string) int {
	t.Helper()
	out := run(t, "filefrag", path)
	m := extentsFound.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("cannot parse filefrag output for %s: %q", path, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Paths returns dir/prefix0 … dir/prefix(n-1).
func Paths(dir, prefix string, n int) []string {
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, prefix+strconv.Itoa(i))
	}
	return paths
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}
