package collector

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// diskstatsSource reads <proc>/diskstats and keeps whole disks only: a whole disk is a
// directory directly under <sys>/block, a partition is not. Loop, ram and zram devices that
// never did I/O are dropped too; they would only add empty rows.
func diskstatsSource(opts Options) func() ([]diskSample, error) {
	statsPath := filepath.Join(opts.ProcPath, "diskstats")
	blockDir := filepath.Join(opts.SysPath, "block")
	return func() ([]diskSample, error) {
		f, err := os.Open(statsPath)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("diskstats: %s is missing (is proc_path right?): %w", statsPath, ErrUnsupported)
		}
		if err != nil {
			return nil, fmt.Errorf("diskstats: %w", err)
		}
		defer f.Close()
		samples, err := parseDiskstats(f)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(blockDir); err != nil {
			return nil, fmt.Errorf("diskstats: cannot tell disks from partitions without %s (is sys_path right?): %w", blockDir, err)
		}

		kept := samples[:0]
		for _, s := range samples {
			if isWholeDisk(blockDir, s.Device) && !isIdleVirtualDisk(s) {
				kept = append(kept, s)
			}
		}
		return kept, nil
	}
}

// isWholeDisk checks <sys>/block/<name>; sysfs spells "/" in names (cciss/c0d0) as "!".
func isWholeDisk(blockDir, device string) bool {
	_, err := os.Stat(filepath.Join(blockDir, strings.ReplaceAll(device, "/", "!")))
	return err == nil
}

func isIdleVirtualDisk(s diskSample) bool {
	virtual := strings.HasPrefix(s.Device, "loop") || strings.HasPrefix(s.Device, "ram") || strings.HasPrefix(s.Device, "zram")
	return virtual && s.ReadOps == 0 && s.WriteOps == 0 && s.InProgress == 0
}
