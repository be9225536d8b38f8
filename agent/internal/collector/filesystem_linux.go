package collector

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// filesystemSource reads the mount table of the agent's own mount namespace (the host's when
// the agent runs as the systemd service) and statfs(2) of each mount point.
func filesystemSource(opts Options) (func() ([]mount, error), func(string) (space, error)) {
	path := filepath.Join(opts.ProcPath, "self", "mountinfo")
	mounts := func() ([]mount, error) {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("filesystem: %s is missing (is proc_path right?): %w", path, ErrUnsupported)
		}
		if err != nil {
			return nil, fmt.Errorf("filesystem: %w", err)
		}
		defer f.Close()
		return parseMountinfo(f)
	}
	return mounts, statfsSpace
}

func statfsSpace(path string) (space, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return space{}, err
	}
	block := uint64(st.Frsize)
	if block == 0 {
		block = uint64(st.Bsize)
	}
	return space{Size: st.Blocks * block, Free: st.Bfree * block, Available: st.Bavail * block}, nil
}
