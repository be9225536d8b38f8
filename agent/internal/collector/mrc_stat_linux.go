package collector

import (
	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// statKernelFile names the file at path as the kernel's samples do: its superblock's device in
// MKDEV encoding and its inode.
func statKernelFile(path string) (bpf.Dev, uint64, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, 0, false
	}
	return bpf.MakeDev(unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev))), st.Ino, true //nolint:unconvert // Dev is uint32 on some architectures
}
