package pagecache

import "fmt"

// MaxFiles is how many files the program keeps counts for (MAX_FILES in pagecache.bpf.c); the
// least recently updated file is evicted first, so idle files go and busy ones stay.
const MaxFiles = 10240

// FileID names a file the way stat(2) does: the device number of its file system (userspace
// encoding, as in Stat_t.Dev) and its inode number.
type FileID struct {
	Dev uint64
	Ino uint64
}

// String is the name of a file whose path is unknown: inode:<dev>:<ino>, with dev the
// stat(2) device number (major and minor via unix.Major and unix.Minor).
func (id FileID) String() string { return fmt.Sprintf("inode:%d:%d", id.Dev, id.Ino) }

// fileIDFromKernel converts the kernel's s_dev (major << 20 | minor) to the userspace encoding
// that stat(2) reports, so a file found in /proc/*/fd can be matched.
func fileIDFromKernel(sDev uint32, ino uint64) FileID {
	return FileID{Dev: userspaceDev(sDev>>20, sDev&(1<<20-1)), Ino: ino}
}

// userspaceDev is Linux's makedev(3) (what unix.Mkdev computes there), written out so that this
// file builds on every OS the agent compiles for.
func userspaceDev(major, minor uint32) uint64 {
	return uint64(major&0x00000fff)<<8 | uint64(major&0xfffff000)<<32 |
		uint64(minor&0x000000ff) | uint64(minor&0xffffff00)<<12
}
