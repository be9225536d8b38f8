package upgrade

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// replaceFile puts a copy of src at dst atomically: the copy is written beside dst (same file
// system), synced, made executable and renamed over dst, so dst is always the old binary or the
// new one, never half of either, whatever stops the machine. A running binary is replaced safely
// on Linux (its inode lives on); on Windows the service is stopped first (restarter_windows.go).
func replaceFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.new")
	if err != nil {
		return fmt.Errorf("write beside %s: %w", dst, err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("replace %s: %w", dst, err)
	}
	syncDir(filepath.Dir(dst))
	return nil
}

// syncDir makes a rename durable where the OS allows opening a directory (not on Windows).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
