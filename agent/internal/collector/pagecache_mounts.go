package collector

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/mountinfo"
)

// mountTable maps a file system's device number (stat(2)'s st_dev) to where it is mounted.
type mountTable map[uint64]fileMount

type fileMount struct {
	point  string // the mount point of the file system's root, if it is mounted whole anywhere
	fsType string
}

// readMountTable reads mountinfo (/proc/self/mountinfo). A file system mounted several times
// is named by its first mount of the whole file system (root "/"), else by its first mount.
// An unreadable table is empty: files are then named by device and inode alone.
func readMountTable(path string) mountTable {
	table := mountTable{}
	f, err := os.Open(path)
	if err != nil {
		return table
	}
	defer f.Close()
	whole := map[uint64]bool{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		// 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
		fields := strings.Fields(scanner.Text())
		sep := -1
		for i, field := range fields {
			if field == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+1 >= len(fields) {
			continue
		}
		majorMinor := strings.SplitN(fields[2], ":", 2)
		if len(majorMinor) != 2 {
			continue
		}
		major, err1 := strconv.ParseUint(majorMinor[0], 10, 32)
		minor, err2 := strconv.ParseUint(majorMinor[1], 10, 32)
		if err1 != nil || err2 != nil {
			continue
		}
		dev := makeDev(uint32(major), uint32(minor))
		isWhole := fields[3] == "/"
		if _, seen := table[dev]; seen && (whole[dev] || !isWhole) {
			continue
		}
		table[dev] = fileMount{point: mountinfo.Unescape(fields[4]), fsType: fields[sep+1]}
		whole[dev] = isWhole
	}
	return table
}

// makeDev is Linux's makedev(3): the st_dev of a file on device major:minor.
func makeDev(major, minor uint32) uint64 {
	return uint64(major&0x00000fff)<<8 | uint64(major&0xfffff000)<<32 |
		uint64(minor&0x000000ff) | uint64(minor&0xffffff00)<<12
}

// devMajorMinor splits an st_dev into major and minor (major(3), minor(3)).
func devMajorMinor(dev uint64) (major, minor uint32) {
	major = uint32((dev>>8)&0x00000fff) | uint32((dev>>32)&0xfffff000)
	minor = uint32(dev&0x000000ff) | uint32((dev>>12)&0xffffff00)
	return major, minor
}
