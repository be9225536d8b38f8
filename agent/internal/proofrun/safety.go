package proofrun

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// allowedDir checks one requested path: an existing directory, not the root, reached without
// symbolic links (so the files land exactly where the person pointed). It returns the clean path.
func allowedDir(path string) (string, error) {
	clean := filepath.Clean(path)
	if clean == string(filepath.Separator) {
		return "", refused("the root directory cannot be a proof-run path: name a directory for the test files")
	}
	resolved, err := filepath.EvalSymlinks(clean)
	if err != nil {
		return "", refused("path %s cannot be used: %v (create the directory first)", path, err)
	}
	if resolved != clean {
		return "", refused("path %s leads to %s through a symbolic link: name the real directory", path, resolved)
	}
	info, err := os.Lstat(clean)
	if err != nil {
		return "", refused("path %s cannot be used: %v", path, err)
	}
	if !info.IsDir() {
		return "", refused("path %s is not a directory", path)
	}
	return clean, nil
}

// inside reports whether path lies strictly beneath dir (both clean and absolute).
func inside(path, dir string) bool {
	return strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// checkInside refuses a path that does not resolve (symbolic links followed) to a place beneath
// one of the allowed directories.
func checkInside(path string, allowed []string) error {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return refused("cannot resolve %s: %v", path, err)
	}
	for _, dir := range allowed {
		if inside(resolved, dir) {
			return nil
		}
	}
	return refused("%s (resolved: %s) is outside the allowed paths %s", path, resolved, strings.Join(allowed, ", "))
}

// makeScratch creates a new directory of the run's own inside dir (mode 0700; Mkdir fails
// rather than reuse anything that exists) and checks it resolves inside dir.
func makeScratch(dir string) (string, error) {
	var random [6]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", err
	}
	scratch := filepath.Join(dir, "spindle-proofrun-"+hex.EncodeToString(random[:]))
	if err := os.Mkdir(scratch, 0o700); err != nil {
		return "", fmt.Errorf("create the proof run's directory: %w", err)
	}
	if err := checkInside(scratch, []string{dir}); err != nil {
		_ = os.Remove(scratch)
		return "", err
	}
	return scratch, nil
}

// spaceNeed is what a run will write to one file system.
type spaceNeed struct {
	dir   string
	bytes int64
}

// checkSpace refuses the run when, on any file system, the bytes it will write would leave less
// free space than the floor (the request's, or the larger of 1 GiB and 5 % of the file system).
// Needs on the same file system (same device) add up. It returns the data directory's device.
func checkSpace(needs []spaceNeed, floorBytes int64) (Device, error) {
	total := map[string]int64{}
	devices := map[string]Device{}
	var first Device
	for i, n := range needs {
		d, err := fileSystemOf(n.dir)
		if err != nil {
			return Device{}, err
		}
		key := d.MajorMinor
		if key == "" {
			key = n.dir
		}
		total[key] += n.bytes
		devices[key] = d
		if i == 0 {
			first = d
		}
	}
	for key, need := range total {
		d := devices[key]
		floor := floorBytes
		if floor == 0 {
			floor = max(DefaultFloorBytes, d.TotalBytes/100*DefaultFloorPercent)
		}
		if d.FreeBytesAt-need < floor {
			return Device{}, refused("writing %s to %s would leave %s free, below the floor of %s: "+
				"lower the size limit, free space, or choose another path",
				formatBytes(need), d.Path, formatBytes(d.FreeBytesAt-need), formatBytes(floor))
		}
	}
	return first, nil
}

func formatBytes(b int64) string {
	const unit = 1024
	if b < 0 {
		return "-" + formatBytes(-b)
	}
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}
