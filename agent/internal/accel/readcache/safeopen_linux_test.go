package readcache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// Pins, residency samples and fadvise never follow a symlink or open a FIFO a user planted
// under an included directory (a FIFO open without O_NONBLOCK would hang the agent).
func TestReadCacheRefusesPlantedFiles(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, make([]byte, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newSampler()
	for name, want := range map[string]error{"link": safeopen.ErrSymlink, "fifo": safeopen.ErrNotRegular} {
		path := filepath.Join(dir, name)
		if p, err := pinFile(path); !errors.Is(err, want) {
			if p != nil {
				p.release()
			}
			t.Errorf("pinFile(%s) = %v, want %v", name, err, want)
		}
		if _, err := s.sample(path); !errors.Is(err, want) {
			t.Errorf("sample(%s) = %v, want %v", name, err, want)
		}
		if err := advise(path, 0, 0, fadviseDontNeed); !errors.Is(err, want) {
			t.Errorf("advise(%s) = %v, want %v", name, err, want)
		}
	}
}
