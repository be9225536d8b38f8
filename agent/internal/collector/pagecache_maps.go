package collector

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/bpf/pagecache"
)

// scanMaps names files that a process maps (/proc/*/maps): shared libraries, executables and
// databases that mmap their files, which are often the busiest files of a host and rarely held
// open by a descriptor. A line is "address perms offset major:minor inode path"; the inode
// picks the candidates and stat confirms the device and inode behind the path.
func (p *filePaths) scanMaps(want map[pagecache.FileID]bool) map[pagecache.FileID]string {
	inodes := map[uint64]bool{}
	for id := range want {
		inodes[id.Ino] = true
	}
	found := map[pagecache.FileID]string{}
	for _, pid := range p.processes() {
		f, err := os.Open(filepath.Join(p.procPath, pid, "maps"))
		if err != nil {
			continue
		}
		scanner := bufio.NewScanner(f)
		scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
		for scanner.Scan() {
			fields := strings.Fields(scanner.Text())
			if len(fields) < 6 || !strings.HasPrefix(fields[5], "/") {
				continue
			}
			ino, err := strconv.ParseUint(fields[4], 10, 64)
			if err != nil || ino == 0 || !inodes[ino] {
				continue
			}
			path := strings.Join(fields[5:], " ") // a path may hold spaces
			id, ok := statFileID(path)
			if !ok || !want[id] {
				continue // deleted since, or another file at that path now
			}
			if _, done := found[id]; !done {
				found[id] = path
			}
		}
		f.Close()
		if len(found) == len(want) {
			break
		}
	}
	return found
}
