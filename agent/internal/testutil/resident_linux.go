package testutil

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel"
)

// ResidentPages says, page by page, whether path's pages are in the page cache (mincore on a
// fresh shared mapping, which brings nothing in).
func ResidentPages(t testing.TB, path string) []bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	mapping, err := unix.Mmap(int(f.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mapping)
	page := os.Getpagesize()
	vector := make([]byte, (len(mapping)+page-1)/page)
	if err := accel.Mincore(mapping, vector); err != nil {
		t.Fatal(err)
	}
	resident := make([]bool, len(vector))
	for i, v := range vector {
		resident[i] = v&1 != 0
	}
	return resident
}
