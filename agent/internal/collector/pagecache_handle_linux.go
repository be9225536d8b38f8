package collector

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// handleLookupFileSystems are the file systems whose file handles this finder can make from an
// inode number alone: ext2/3/4 encode a handle as the inode and its generation, and accept a
// generation of 0 as "any" (ext4_nfs_get_inode). Others (xfs, btrfs) need what the agent does
// not have, so their files are left to the other finders.
var handleLookupFileSystems = map[string]bool{"ext4": true, "ext3": true, "ext2": true}

// fileidIno32Gen is FILEID_INO32_GEN (include/linux/exportfs.h): a 32-bit inode number and
// generation.
const fileidIno32Gen = 1

// findByHandle names files through the kernel's directory cache: open_by_handle_at with O_PATH
// (nothing is read; needs CAP_DAC_READ_SEARCH, which the agent has) opens the inode on its
// mount, and /proc/self/fd/N then gives the path of a directory entry the kernel still holds
// for it. That names files that short-lived processes read and closed (compilers, backups,
// cat), which no descriptor or map shows any more. The path is confirmed with stat.
func findByHandle(want map[pagecache.FileID]bool, mounts mountTable) (found, why map[pagecache.FileID]string) {
	found, why = map[pagecache.FileID]string{}, map[pagecache.FileID]string{}
	mountFDs := map[uint64]int{}
	defer func() {
		for _, fd := range mountFDs {
			unix.Close(fd)
		}
	}()
	for id := range want {
		m, ok := mounts[id.Dev]
		switch {
		case !ok: // unnamedFile already says it is not mounted here
			why[id] = ""
			continue
		case !handleLookupFileSystems[m.fsType]:
			why[id] = m.fsType + " cannot be searched by inode number"
			continue
		case id.Ino > 0xffffffff:
			continue
		}
		mountFD, ok := mountFDs[id.Dev]
		if !ok {
			fd, err := unix.Open(m.point, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0) // not O_PATH: open_by_handle_at refuses one
			if err != nil {
				why[id] = "its mount point " + m.point + " could not be opened"
				continue
			}
			mountFD, mountFDs[id.Dev] = fd, fd
		}
		handle := make([]byte, 8)
		binary.NativeEndian.PutUint32(handle[0:4], uint32(id.Ino))
		// handle[4:8], the generation, stays 0: any generation.
		fd, err := unix.OpenByHandleAt(mountFD, unix.NewFileHandle(fileidIno32Gen, handle), unix.O_PATH|unix.O_CLOEXEC)
		switch {
		case err == unix.ESTALE:
			why[id] = "deleted (the inode is free)"
			continue
		case err == unix.EPERM:
			why[id] = "looking it up by inode needs CAP_DAC_READ_SEARCH"
			continue
		case err != nil:
			continue
		}
		path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		unix.Close(fd)
		if err != nil || !filepath.IsAbs(path) {
			continue
		}
		info, err := os.Stat(path)
		switch got, ok := statFileID(path); {
		case err != nil || !ok || got != id:
			// a directory entry the kernel no longer connects to a path (a deleted or unreachable name)
		case !info.Mode().IsRegular():
			// The page cache counted a regular file's pages: this inode was freed and given to
			// something else since.
			why[id] = "deleted (its inode number now belongs to " + path + ")"
		default:
			found[id] = path
		}
	}
	return found, why
}
