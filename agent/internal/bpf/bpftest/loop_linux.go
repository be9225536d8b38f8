// Package bpftest gives the eBPF tests real block devices and real I/O: a loop device over a
// file in the test's temp dir, O_DIRECT reads and writes of a known size, and a scoped change
// of a queue limit that is always restored.
package bpftest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/bpf"
)

// RequireRoot skips the test unless it runs as root; with CI=true it fails instead, because CI
// runs as root here and a skip would hide a broken test.
func RequireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("eBPF tests need root (CI runs as root)")
	}
	t.Skip("eBPF tests need root: run go test as root")
}

// Loop is a loop device backed by a sparse file, detached when the test ends.
type Loop struct {
	Name string // loop7
	Path string // /dev/loop7
	Dev  bpf.Dev
	file *os.File // the device, opened O_DIRECT
}

// NewLoop attaches a loop device of sizeBytes over a file in t.TempDir().
func NewLoop(t *testing.T, sizeBytes int64) *Loop {
	t.Helper()
	backing := filepath.Join(t.TempDir(), "loop.img")
	bf, err := os.OpenFile(backing, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer bf.Close()
	if err := bf.Truncate(sizeBytes); err != nil {
		t.Fatal(err)
	}
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("open /dev/loop-control (is the loop module loaded?): %v", err)
	}
	defer ctl.Close()

	for attempt := 0; attempt < 5; attempt++ {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			t.Fatalf("find a free loop device: %v", err)
		}
		path := fmt.Sprintf("/dev/loop%d", n)
		dev, err := os.OpenFile(path, os.O_RDWR|unix.O_DIRECT, 0)
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		cfg := unix.LoopConfig{Fd: uint32(bf.Fd()), Size: 4096}
		cfg.Info.Flags = unix.LO_FLAGS_AUTOCLEAR | unix.LO_FLAGS_DIRECT_IO
		if err := unix.IoctlLoopConfigure(int(dev.Fd()), &cfg); err != nil {
			dev.Close()
			if err == unix.EBUSY { // another process took it between GET_FREE and CONFIGURE
				continue
			}
			t.Fatalf("attach %s: %v", path, err)
		}
		l := &Loop{Name: fmt.Sprintf("loop%d", n), Path: path, file: dev}
		l.Dev = readDev(t, l.Name)
		t.Cleanup(func() { dev.Close() }) // AUTOCLEAR detaches on the last close
		return l
	}
	t.Fatal("no free loop device after 5 attempts")
	return nil
}

func readDev(t *testing.T, name string) bpf.Dev {
	t.Helper()
	raw, err := os.ReadFile("/sys/block/" + name + "/dev")
	if err != nil {
		t.Fatal(err)
	}
	major, minor, _ := strings.Cut(strings.TrimSpace(string(raw)), ":")
	ma, err1 := strconv.ParseUint(major, 10, 32)
	mi, err2 := strconv.ParseUint(minor, 10, 32)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad /sys/block/%s/dev %q", name, raw)
	}
	return bpf.MakeDev(uint32(ma), uint32(mi))
}

// AlignedBuffer returns page-aligned memory, as O_DIRECT needs.
func AlignedBuffer(t *testing.T, size int) []byte {
	t.Helper()
	buf, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(buf) })
	for i := range buf {
		buf[i] = byte(i)
	}
	return buf
}

// WriteDirect writes count blocks of len(buf) bytes at consecutive offsets from offset, each a
// separate synchronous O_DIRECT I/O.
func (l *Loop) WriteDirect(t *testing.T, buf []byte, offset int64, count int) {
	t.Helper()
	for i := range count {
		if _, err := unix.Pwrite(int(l.file.Fd()), buf, offset+int64(i*len(buf))); err != nil {
			t.Fatalf("O_DIRECT write to %s: %v", l.Path, err)
		}
	}
}

// ReadDirect reads count blocks of len(buf) bytes like WriteDirect.
func (l *Loop) ReadDirect(t *testing.T, buf []byte, offset int64, count int) {
	t.Helper()
	for i := range count {
		if _, err := unix.Pread(int(l.file.Fd()), buf, offset+int64(i*len(buf))); err != nil {
			t.Fatalf("O_DIRECT read from %s: %v", l.Path, err)
		}
	}
}

// SetMaxSectorsKB lowers the device's largest request and restores the old value when the
// test ends.
func (l *Loop) SetMaxSectorsKB(t *testing.T, kb int) {
	t.Helper()
	path := "/sys/block/" + l.Name + "/queue/max_sectors_kb"
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(kb)), 0); err != nil {
		t.Fatalf("set %s: %v", path, err)
	}
	t.Cleanup(func() {
		if err := os.WriteFile(path, old, 0); err != nil {
			t.Errorf("restore %s to %s: %v", path, strings.TrimSpace(string(old)), err)
		}
	})
}
