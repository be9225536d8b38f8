package collector

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// blockDeviceNames maps each disk's device number to its name from <sys>/block/<name>/dev
// ("major:minor"), the names diskstats uses. Read every tick: disks come and go.
func blockDeviceNames(sysPath string) map[bpf.Dev]string {
	names := map[bpf.Dev]string{}
	entries, err := os.ReadDir(filepath.Join(sysPath, "block"))
	if err != nil {
		return names
	}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(sysPath, "block", e.Name(), "dev"))
		if err != nil {
			continue
		}
		major, minor, ok := strings.Cut(strings.TrimSpace(string(raw)), ":")
		ma, err1 := strconv.ParseUint(major, 10, 32)
		mi, err2 := strconv.ParseUint(minor, 10, 32)
		if !ok || err1 != nil || err2 != nil {
			continue
		}
		names[bpf.MakeDev(uint32(ma), uint32(mi))] = e.Name()
	}
	return names
}

// deviceName names dev, falling back to "major:minor" for a disk that is already gone.
func deviceName(names map[bpf.Dev]string, dev bpf.Dev) string {
	if name, ok := names[dev]; ok {
		return name
	}
	return fmt.Sprintf("%d:%d", dev.Major(), dev.Minor())
}
