package safeopen

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Each case is a real file system object a local user could plant where a policy points.
func TestOpenRefusesWhatAUserCouldPlant(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "regular")
	if err := os.WriteFile(regular, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("root's"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(secret, filepath.Join(dir, "link")))
	must(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "real", "f"), nil, 0o600))
	must(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "dirlink")))
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
	must(t, os.Link(secret, filepath.Join(dir, "hardlink")))
	haveDevice := unix.Mknod(filepath.Join(dir, "null"), unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))) == nil

	cases := []struct {
		name   string
		access Access
		want   error
	}{
		{"link", Read, ErrSymlink},
		{"link", Write, ErrSymlink},
		{"dirlink/f", Read, ErrSymlink}, // a symlink in the middle of the path
		{"fifo", Read, ErrNotRegular},   // and it must not block: see the deadline below
		{"fifo", Write, ErrNotRegular},
		{"hardlink", Write, ErrHardLinked},
		{"hardlink", ReadWrite, ErrHardLinked},
		{".", Read, ErrNotRegular},
	}
	if haveDevice {
		cases = append(cases, struct {
			name   string
			access Access
			want   error
		}{"null", ReadWrite, ErrNotRegular})
	} else {
		t.Log("mknod refused (not root): the device-node case is not exercised")
	}
	for _, c := range cases {
		done := make(chan error, 1)
		go func() {
			f, _, err := Open(filepath.Join(dir, c.name), c.access, Options{})
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, c.want) {
				t.Errorf("Open(%s, %v) = %v, want %v", c.name, c.access, err, c.want)
			}
		case <-time.After(time.Minute): // a blocking open never returns; a working one returns at once
			t.Fatalf("Open(%s, %v) blocked", c.name, c.access)
		}
	}

	// What must still work: a plain file, read through a hard link, on its own device.
	dev, err := DeviceOf(dir)
	must(t, err)
	for _, c := range []struct {
		name   string
		access Access
	}{{"regular", Read}, {"regular", Write}, {"regular", ReadWrite}, {"hardlink", Read}, {"real/f", Read}} {
		f, st, err := Open(filepath.Join(dir, c.name), c.access, Options{Device: dev})
		if err != nil {
			t.Errorf("Open(%s, %v): %v", c.name, c.access, err)
			continue
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			t.Errorf("%s: mode %o", c.name, st.Mode)
		}
		if flags, _ := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0); flags&unix.O_NONBLOCK != 0 {
			t.Errorf("%s: O_NONBLOCK left set", c.name)
		}
		f.Close()
	}
	if _, _, err := Open(regular, Read, Options{Device: dev + 1}); !errors.Is(err, ErrOtherDevice) {
		t.Errorf("a file on another device: %v, want ErrOtherDevice", err)
	}
	if procDev, err := DeviceOf("/proc/uptime"); err == nil && procDev != dev {
		if _, _, err := Open("/proc/uptime", Read, Options{Device: dev}); !errors.Is(err, ErrOtherDevice) {
			t.Errorf("/proc/uptime with the temp dir's device: %v, want ErrOtherDevice", err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
