//go:build unix

package httpapi

import (
	"io/fs"
	"syscall"
)

// fileIdentity is the file's inode and device.
func fileIdentity(info fs.FileInfo) (inode, device uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), uint64(st.Dev) //nolint:unconvert // their widths differ per platform
	}
	return 0, 0
}
