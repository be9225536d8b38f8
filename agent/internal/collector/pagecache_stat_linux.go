package collector

import (
	"syscall"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// statFileID is the device and inode of the file at path (links followed).
func statFileID(path string) (pagecache.FileID, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return pagecache.FileID{}, false
	}
	return pagecache.FileID{Dev: uint64(st.Dev), Ino: st.Ino}, true //nolint:unconvert // Dev is uint32 on some architectures
}
