package writeopt

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// diskOf names the whole disk (as in /proc/diskstats) holding path: a partition maps to its
// parent, so the activity of the whole device counts.
func diskOf(sysPath, path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	link := filepath.Join(sysPath, "dev", "block", fmt.Sprintf("%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev)))
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", fmt.Errorf("no block device for %s (%s): %w", path, link, err)
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		return filepath.Base(filepath.Dir(real)), nil
	}
	return filepath.Base(real), nil
}

// ioTicksMillis is field 13 of /proc/diskstats: milliseconds the device had I/O in flight.
func ioTicksMillis(procPath, disk string) (uint64, error) {
	data, err := os.ReadFile(filepath.Join(procPath, "diskstats"))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 13 && fields[2] == disk {
			return strconv.ParseUint(fields[12], 10, 64)
		}
	}
	return 0, fmt.Errorf("%s not in %s/diskstats", disk, procPath)
}

// diskUtilisationPercent measures how busy disk is over window (io_time delta per wall time).
func diskUtilisationPercent(procPath, disk string, window time.Duration, sleep func(time.Duration)) (float64, error) {
	before, err := ioTicksMillis(procPath, disk)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	sleep(window)
	after, err := ioTicksMillis(procPath, disk)
	if err != nil {
		return 0, err
	}
	elapsed := time.Since(start).Milliseconds()
	if elapsed <= 0 || after < before {
		return 0, nil // counter reset (device replaced): no evidence of activity
	}
	return float64(after-before) * 100 / float64(elapsed), nil
}
