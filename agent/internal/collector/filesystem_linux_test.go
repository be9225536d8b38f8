package collector

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFilesystemOnThisMachine measures this machine's real file systems: the root file system
// is among them (unless it is an overlay, as in some containers), and every measured one obeys
// available ≤ free ≤ size, with the root's size equal to what statfs(2) says independently.
func TestFilesystemOnThisMachine(t *testing.T) {
	c, err := newFilesystemCollector(Options{ProcPath: "/proc"})
	if err != nil {
		t.Fatal(err)
	}
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatalf("collect: %v", err)
	}
	sizes := map[string]int64{}
	for key, value := range sink.series {
		if !strings.HasPrefix(key, "gauge system.filesystem.limit[By]{") {
			continue
		}
		n, _ := strconv.ParseInt(value, 10, 64)
		mountpoint := between(key, "system.filesystem.mountpoint=", ",")
		sizes[mountpoint] = n
		if strings.Contains(key, "type=tmpfs") || strings.Contains(key, "type=proc") || strings.HasPrefix(mountpoint, "/sys") {
			t.Errorf("measured a pseudo or memory file system: %s", key)
		}
	}
	if len(sizes) == 0 {
		t.Fatalf("no file system measured on this machine; series: %v", sink.series)
	}
	var root unix.Statfs_t
	if err := unix.Statfs("/", &root); err != nil {
		t.Fatal(err)
	}
	if size, ok := sizes["/"]; ok {
		if want := int64(root.Blocks) * root.Frsize; size != want {
			t.Errorf("/ size = %d, statfs says %d", size, want)
		}
	} else {
		t.Logf("/ is not measured here (overlay root?); measured %v", sizes)
	}
	for key, value := range sink.series {
		if !strings.Contains(key, "system.filesystem.state=") {
			continue
		}
		if n, _ := strconv.ParseInt(value, 10, 64); n < 0 || n > sizes[between(key, "system.filesystem.mountpoint=", ",")] {
			t.Errorf("%s = %s, outside [0, size]", key, value)
		}
	}
}
