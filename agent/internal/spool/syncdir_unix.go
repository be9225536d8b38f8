//go:build !windows

package spool

import "os"

// syncDir makes a rename durable: on POSIX file systems the directory entry is only on disk
// once the directory itself is fsynced.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
