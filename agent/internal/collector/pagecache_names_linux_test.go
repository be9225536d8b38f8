package collector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// fakeProc is a /proc tree with one process and the mount table given.
func fakeProc(t *testing.T, mountinfo string) (proc, pid string) {
	t.Helper()
	proc = filepath.Join(t.TempDir(), "proc")
	pid = filepath.Join(proc, "4243")
	for _, d := range []string{filepath.Join(pid, "fd"), filepath.Join(proc, "self")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proc, "self", "mountinfo"), []byte(mountinfo), 0o644); err != nil {
		t.Fatal(err)
	}
	return proc, pid
}

// A file a process maps (a library, an mmap'ed database) is named from /proc/*/maps, even with
// a space in its path; a line whose inode matches but whose path is now another file is not.
func TestFilePathsFromMemoryMaps(t *testing.T) {
	proc, pid := fakeProc(t, "")
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib with space.so")
	other := filepath.Join(dir, "other.so")
	for _, f := range []string{lib, other} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	id, _ := statFileID(lib)
	otherID, _ := statFileID(other)
	stale := pagecache.FileID{Dev: otherID.Dev, Ino: otherID.Ino + 7_000_000} // mapped once, the path now another inode
	maps := fmt.Sprintf("7f0000000000-7f0000001000 r--p 00000000 fe:00 %d %s\n"+
		"7f0000002000-7f0000003000 r-xp 00000000 fe:00 %d %s\n"+
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n", id.Ino, lib, stale.Ino, other)
	if err := os.WriteFile(filepath.Join(pid, "maps"), []byte(maps), 0o644); err != nil {
		t.Fatal(err)
	}
	names := newFilePaths(proc).resolve([]pagecache.FileID{id, stale})
	if names[id] != lib {
		t.Errorf("mapped file named %q, want %q", names[id], lib)
	}
	if !strings.HasPrefix(names[stale], fmt.Sprintf("inode %d on ", stale.Ino)) || !strings.Contains(names[stale], "not memory-mapped by any process") {
		t.Errorf("a map line whose path is now another file named %q", names[stale])
	}
}

// A file nothing names is given its mount point (from mountinfo: the mount of the whole file
// system, not a bind mount of part of it) and its inode in full, with what was tried.
func TestUnnamedFileHasMountPointAndInode(t *testing.T) {
	proc, _ := fakeProc(t, "36 25 254:1 /srv/data /mnt/bind rw,relatime shared:1 - xfs /dev/vdb1 rw\n"+
		"37 25 254:1 / /srv rw,relatime shared:2 - xfs /dev/vdb1 rw\n"+
		"38 25 0:45 / /mnt/with\\040space rw - tmpfs tmpfs rw\n")
	onSrv := pagecache.FileID{Dev: makeDev(254, 1), Ino: 4_294_967_396}
	onTmpfs := pagecache.FileID{Dev: makeDev(0, 45), Ino: 12}
	names := newFilePaths(proc).resolve([]pagecache.FileID{onSrv, onTmpfs})
	want := "inode 4294967396 on /srv (device 254:1): not open in any process, not memory-mapped by any process, xfs cannot be searched by inode number"
	if names[onSrv] != want {
		t.Errorf("named %q, want %q", names[onSrv], want)
	}
	if want := "inode 12 on /mnt/with space (device 0:45): not open in any process, not memory-mapped by any process, tmpfs cannot be searched by inode number"; names[onTmpfs] != want {
		t.Errorf("named %q, want %q", names[onTmpfs], want)
	}
	if major, minor := devMajorMinor(makeDev(259, 1_048_575)); major != 259 || minor != 1_048_575 {
		t.Errorf("devMajorMinor(makeDev(259, 1048575)) = %d:%d", major, minor)
	}
}

// On ext4 the kernel's directory cache names a file that no process holds open or maps any
// more (read by a process that has exited), through open_by_handle_at; a deleted file is never
// named by its old path. Root only (CAP_DAC_READ_SEARCH), on an ext4 temporary directory.
func TestFilePathsByHandleOnExt4(t *testing.T) {
	bpftest.RequireRoot(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil || fs.Type != unix.EXT4_SUPER_MAGIC {
		t.Skipf("%s is not on ext4 (statfs type %#x): the handle lookup is for ext2/3/4", dir, fs.Type)
	}
	closed := filepath.Join(dir, "read-and-closed.dat")
	gone := filepath.Join(dir, "deleted.dat")
	for _, f := range []string{closed, gone} {
		if err := os.WriteFile(f, []byte("data"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	id, _ := statFileID(closed)
	goneID, _ := statFileID(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	// This host's real mount table, but no process in the /proc tree: only the handle can name it.
	proc, _ := fakeProc(t, "")
	paths := newFilePaths(proc)
	paths.mounts = func() mountTable { return readMountTable("/proc/self/mountinfo") }
	names := paths.resolve([]pagecache.FileID{id, goneID})
	if names[id] != closed {
		t.Errorf("a closed file on ext4 named %q, want %q", names[id], closed)
	}
	// Never by its old name; "deleted" unless the file system gave the inode to a new file since.
	if names[goneID] == gone {
		t.Errorf("a deleted file named by its old path %q", gone)
	}
	t.Logf("the deleted file: %s", names[goneID])
}
