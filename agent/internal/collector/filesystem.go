package collector

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/mountinfo"
)

func init() { register("filesystem", true, newFilesystemCollector) }

// skippedFSTypes are never measured: kernel pseudo file systems (no disk behind them), memory
// file systems (they fill RAM, not a disk), read-only images, and network file systems, whose
// statfs can block for minutes when the server is away (node_exporter skips the same).
var skippedFSTypes = map[string]bool{
	"autofs": true, "binfmt_misc": true, "bpf": true, "cgroup": true, "cgroup2": true, "configfs": true,
	"debugfs": true, "devpts": true, "devtmpfs": true, "efivarfs": true, "fusectl": true, "hugetlbfs": true,
	"mqueue": true, "nsfs": true, "proc": true, "pstore": true, "rpc_pipefs": true, "securityfs": true,
	"selinuxfs": true, "sysfs": true, "tracefs": true, "tmpfs": true, "ramfs": true, "overlay": true,
	"squashfs": true, "iso9660": true, "nfs": true, "nfs4": true, "cifs": true, "smb3": true, "ceph": true,
	"glusterfs": true, "9p": true, "fuse.sshfs": true, "fuse.lxcfs": true, "fuse.portal": true,
}

// skippedMountPrefixes hold the kernel's own trees and container runtimes' private mounts.
var skippedMountPrefixes = []string{"/proc", "/sys", "/dev", "/run/credentials/", "/var/lib/docker/", "/var/lib/containers/storage/", "/var/lib/kubelet/pods/"}

// mount is one line of /proc/self/mountinfo that is worth measuring.
type mount struct {
	DeviceID   string // major:minor, to measure a device mounted twice (bind mounts) once
	Mountpoint string
	FSType     string
	Device     string // the mount source, e.g. /dev/nvme0n1p2
}

// parseMountinfo returns the local, disk-backed mounts of a mountinfo file in order, each
// device once (its first mount; later ones are bind mounts or the same file system again).
func parseMountinfo(r io.Reader) ([]mount, error) {
	var mounts []mount
	seen := map[string]bool{}
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 64*1024), 1024*1024)
	for scanner.Scan() {
		// 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
		before, after, found := strings.Cut(scanner.Text(), " - ")
		left, right := strings.Fields(before), strings.Fields(after)
		if !found || len(left) < 5 || len(right) < 2 {
			return nil, fmt.Errorf("mountinfo: malformed line %q", scanner.Text())
		}
		m := mount{DeviceID: left[2], Mountpoint: mountinfo.Unescape(left[4]), FSType: right[0], Device: mountinfo.Unescape(right[1])}
		if skippedFSTypes[m.FSType] || skippedMountpoint(m.Mountpoint) || seen[m.DeviceID] {
			continue
		}
		seen[m.DeviceID] = true
		mounts = append(mounts, m)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read mountinfo: %w", err)
	}
	return mounts, nil
}

func skippedMountpoint(path string) bool {
	for _, prefix := range skippedMountPrefixes {
		if path == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(path, strings.TrimSuffix(prefix, "/")+"/") {
			return true
		}
	}
	return false
}

// space is one file system's statfs answer in bytes.
type space struct {
	Size, Free, Available uint64
}

type filesystemCollector struct {
	mounts func() ([]mount, error)
	statfs func(path string) (space, error)
}

func newFilesystemCollector(opts Options) (Collector, error) {
	mounts, statfs := filesystemSource(opts)
	return &filesystemCollector{mounts: mounts, statfs: statfs}, nil
}

// Collect records size, free and available bytes of every measured mount. A mount that cannot
// be read (unmounted meanwhile, no permission) is skipped; the others are still recorded.
func (c *filesystemCollector) Collect(_ context.Context, sink Sink) error {
	mounts, err := c.mounts()
	if err != nil {
		return err
	}
	var failures []error
	recorded := 0
	for _, m := range mounts {
		s, err := c.statfs(m.Mountpoint)
		if err != nil {
			failures = append(failures, fmt.Errorf("statfs %s: %w", m.Mountpoint, err))
			continue
		}
		if s.Size == 0 {
			continue // nothing to fill (an empty loop device, a pseudo file system we did not know)
		}
		// Some file systems (btrfs with compression, XFS with reflinks) estimate; keep the
		// stored invariant available ≤ free ≤ size that the gateway checks.
		s.Free = min(s.Free, s.Size)
		s.Available = min(s.Available, s.Free)
		attrs := []attribute.KeyValue{
			attribute.String(catalogue.AttrDevice, m.Device), attribute.String(catalogue.AttrMountpoint, m.Mountpoint),
			attribute.String(catalogue.AttrFSType, m.FSType),
		}
		state := func(name string) []attribute.KeyValue {
			return append(attrs[:3:3], attribute.String(catalogue.AttrFSState, name))
		}
		sink.SetInt(catalogue.FilesystemLimit, int64(s.Size), attrs...)
		sink.SetInt(catalogue.FilesystemUsage, int64(s.Size-s.Free), state("used")...)
		sink.SetInt(catalogue.FilesystemUsage, int64(s.Available), state("free")...)
		sink.SetInt(catalogue.FilesystemUsage, int64(s.Free-s.Available), state("reserved")...)
		recorded++
	}
	if recorded == 0 && len(failures) > 0 {
		return errors.Join(failures...)
	}
	if recorded == 0 {
		return ErrNoData
	}
	return nil
}

func (c *filesystemCollector) Close() error { return nil }
