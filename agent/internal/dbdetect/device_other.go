//go:build !linux

package dbdetect

// device: only symlinked WAL directories are found off Linux (the scanner is Linux-only).
func device(string) (uint64, bool) { return 0, false }
