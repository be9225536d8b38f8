package collector

import (
	"context"
	"errors"
	"strings"
	"testing"
)

const mountinfoFixture = `22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
23 22 0:21 / /proc rw,nosuid shared:2 - proc proc rw
24 22 0:22 / /sys rw shared:3 - sysfs sysfs rw
25 22 0:5 / /dev rw shared:4 - devtmpfs devtmpfs rw,size=100k
26 22 0:23 / /run rw shared:5 - tmpfs tmpfs rw
27 22 259:3 / /var/lib/my\040data rw shared:6 - xfs /dev/nvme0n1p3 rw
28 22 259:3 /sub /srv/bind rw shared:6 - xfs /dev/nvme0n1p3 rw
29 22 0:45 / /mnt/nfs rw shared:7 - nfs4 server:/export rw
30 22 0:46 / /var/lib/docker/overlay2/abc/merged rw - overlay overlay rw
31 22 259:4 / /boot/efi rw shared:8 - vfat /dev/nvme0n1p1 rw
`

func TestParseMountinfoKeepsLocalDisksOnce(t *testing.T) {
	mounts, err := parseMountinfo(strings.NewReader(mountinfoFixture))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range mounts {
		got = append(got, m.Mountpoint+" "+m.FSType+" "+m.Device)
	}
	want := []string{"/ ext4 /dev/vda", "/var/lib/my data xfs /dev/nvme0n1p3", "/boot/efi vfat /dev/nvme0n1p1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("mounts:\n got %q\nwant %q", got, want)
	}
	if _, err := parseMountinfo(strings.NewReader("garbage\n")); err == nil {
		t.Error("a malformed line must be an error, not a silent skip")
	}
}

func TestFilesystemRecordsUsedFreeReserved(t *testing.T) {
	c := &filesystemCollector{
		mounts: func() ([]mount, error) {
			return []mount{{DeviceID: "8:1", Mountpoint: "/data", FSType: "ext4", Device: "/dev/sda1"}, {DeviceID: "8:2", Mountpoint: "/gone", FSType: "ext4", Device: "/dev/sda2"}}, nil
		},
		statfs: func(path string) (space, error) {
			if path == "/gone" {
				return space{}, errors.New("no such file or directory")
			}
			return space{Size: 1000, Free: 300, Available: 250}, nil
		},
	}
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatalf("one unreadable mount must not fail the others: %v", err)
	}
	attrs := "system.device=/dev/sda1,system.filesystem.mountpoint=/data"
	state := func(name string) string {
		return attrs + ",system.filesystem.state=" + name + ",system.filesystem.type=ext4"
	}
	for key, want := range map[string]string{
		"gauge system.filesystem.limit[By]{" + attrs + ",system.filesystem.type=ext4}": "1000",
		"gauge system.filesystem.usage[By]{" + state("used") + "}":                     "700",
		"gauge system.filesystem.usage[By]{" + state("free") + "}":                     "250",
		"gauge system.filesystem.usage[By]{" + state("reserved") + "}":                 "50",
	} {
		if got := sink.series[key]; got != want {
			t.Errorf("%s = %q, want %s", key, got, want)
		}
	}
	if len(sink.series) != 4 {
		t.Errorf("recorded %d series, want 4 (the unreadable mount records none): %v", len(sink.series), sink.series)
	}
}
