package memlimit_test

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func dropFileCache(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
}

func sleep() { time.Sleep(50 * time.Millisecond) }
