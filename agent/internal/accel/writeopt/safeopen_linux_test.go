package writeopt

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// A local user who can write a watched directory plants a symlink to a root-owned file, a FIFO
// and a hard link: preallocation, trimming and defragmentation touch none of them, and never block.
func TestWriteFeaturesRefusePlantedFiles(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("root's file"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(victim, filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]error{"link": safeopen.ErrSymlink, "fifo": safeopen.ErrNotRegular, "hard": safeopen.ErrHardLinked} {
		path := filepath.Join(dir, name)
		limits := windowLimits{firstBytes: 1 << 20, minBytes: 1 << 20, capBytes: 1 << 20, horizon: time.Minute, freeShare: 1}
		if _, err := preallocate(path, &growth{}, limits, time.Now()); !errors.Is(err, want) {
			t.Errorf("preallocate(%s) = %v, want %v", name, err, want)
		}
		if _, _, err := trimReservation(path, nil); !errors.Is(err, want) {
			t.Errorf("trimReservation(%s) = %v, want %v", name, err, want)
		}
		if _, err := CountExtents(path); name != "hard" && !errors.Is(err, want) {
			t.Errorf("CountExtents(%s) = %v, want %v", name, err, want)
		}
	}
	var st unix.Stat_t
	if err := unix.Stat(victim, &st); err != nil {
		t.Fatal(err)
	}
	if st.Size != int64(len("root's file")) || st.Blocks > 8 {
		t.Fatalf("the victim changed: size %d, %d blocks", st.Size, st.Blocks)
	}
}
