package pagecache

import (
	"fmt"
	"slices"
)

// MaxFiles is how many files the program keeps counts for (MAX_FILES in pagecache.bpf.c); the
// least recently updated file is evicted first, so idle files go and busy ones stay.
const MaxFiles = 10240

// FileID names a file the way stat(2) does: the device number of its file system (userspace
// encoding, as in Stat_t.Dev) and its inode number.
type FileID struct {
	Dev uint64
	Ino uint64
}

// String is a file's identity in logs and errors: inode:<dev>:<ino>, with dev the stat(2)
// device number (major and minor via unix.Major and unix.Minor). The top files name a file no
// finder could name by its mount point and inode instead (collector/pagecache_paths.go).
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

// FileCounts is one file's counts in a reading.
type FileCounts struct {
	ID     FileID
	Counts Counts
}

// Files is one reading of the per-file counts, sorted by ID. A flat sorted slice takes about half
// the memory of a map of the same entries, and the agent holds up to three readings of up to
// MaxFiles files at once (the one being taken and the top-files list's previous one).
type Files []FileCounts

// CompareFileIDs orders FileIDs by device, then inode.
func CompareFileIDs(a, b FileID) int {
	if a.Dev != b.Dev {
		return cmpUint64(a.Dev, b.Dev)
	}
	return cmpUint64(a.Ino, b.Ino)
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Sort puts the entries in ID order (what every other method expects).
func (f Files) Sort() {
	slices.SortFunc(f, func(a, b FileCounts) int { return CompareFileIDs(a.ID, b.ID) })
}

// Get returns the counts of id, if the reading has it.
func (f Files) Get(id FileID) (Counts, bool) {
	i, found := slices.BinarySearchFunc(f, id, func(e FileCounts, id FileID) int { return CompareFileIDs(e.ID, id) })
	if !found {
		return Counts{}, false
	}
	return f[i].Counts, true
}
