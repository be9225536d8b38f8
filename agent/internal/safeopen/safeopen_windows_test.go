package safeopen

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Runs as a Windows binary under Wine in CI (windows-check.sh), and on Windows as it is.
func TestOpenOnWindowsRefusesWhatThePolicyMustNotTouch(t *testing.T) {
	dir, err := os.MkdirTemp("", "safeopen") // not t.TempDir: Wine 8 refuses its cleanup
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "data.mdf")
	if err := os.WriteFile(file, []byte("twelve bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, info, err := Open(file, Write, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if info.Size != 12 || info.Links != 1 || info.Volume == 0 {
		t.Fatalf("info %+v: want 12 bytes, one link and the volume's serial", info)
	}
	if _, _, err := Open(file, Read, Options{Volume: info.Volume + 1}); !errors.Is(err, ErrOtherDevice) {
		t.Fatalf("another volume: %v, want ErrOtherDevice", err)
	}
	if _, _, err := Open(dir, Read, Options{}); err == nil {
		t.Fatal("a directory was opened as a file")
	}
	linked := filepath.Join(dir, "linked.mdf")
	if err := os.Link(file, linked); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Open(linked, Write, Options{}); !errors.Is(err, ErrHardLinked) {
		t.Fatalf("a hard-linked file for writing: %v, want ErrHardLinked", err)
	}
	if f, _, err := Open(linked, Read, Options{}); err != nil {
		t.Fatalf("a hard-linked file for reading: %v", err)
	} else {
		f.Close()
	}
}
