package fiemap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// underWine reports whether the test runs under Wine (its ntdll exports wine_get_version).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// The real FSCTL_GET_RETRIEVAL_POINTERS call. On Windows (NTFS, ReFS) a freshly written file has
// at least one fragment. Wine 8 answers every file with a stub reply (one extent ending before
// it starts), which the parser must refuse rather than count.
func TestCountFDOnARealFile(t *testing.T) {
	dir, err := os.MkdirTemp("", "fiemap")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir) // best effort: Wine refuses some of Go's delete calls
	path := filepath.Join(dir, "data.mdf")
	if err := os.WriteFile(path, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := CountFile(f)
	if underWine() {
		if err == nil || !strings.Contains(err.Error(), "not after") {
			t.Fatalf("under Wine: want the stub reply refused, got %d, %v", n, err)
		}
		return
	}
	if errors.Is(err, ErrUnsupported) {
		t.Skipf("the temp directory's file system maps no clusters: %v", err)
	}
	if err != nil || n < 1 {
		t.Fatalf("CountFile = %d, %v; want at least one fragment", n, err)
	}
	if _, err := CountFDSyncedTo(int(f.Fd()), path, 4<<20); err != nil {
		t.Fatalf("CountFDSyncedTo: %v", err)
	}
}
