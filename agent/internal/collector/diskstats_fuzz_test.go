package collector

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// FuzzParseDiskstats: any /proc/diskstats content either parses or returns an error naming
// the line; it never panics, and every parsed device is a non-empty name without spaces.
func FuzzParseDiskstats(f *testing.F) {
	if seed, err := os.ReadFile("testdata/proc-tick1/diskstats"); err == nil {
		f.Add(seed)
	}
	f.Add([]byte("   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n"))
	f.Add([]byte("   8       0 sda 1 2 3 4 5 6 7 8 9 10 x 12 13 14 15 16 17 18 19 20\n"))
	f.Add([]byte("8 0 sda 18446744073709551616 2 3 4 5 6 7 8 9 10 11\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, err := parseDiskstats(bytes.NewReader(data))
		if err != nil {
			if !strings.Contains(err.Error(), "diskstats") {
				t.Fatalf("error does not say what it read: %v", err)
			}
			return
		}
		for _, s := range samples {
			if s.Device == "" || strings.ContainsAny(s.Device, " \t\n") {
				t.Fatalf("device name %q", s.Device)
			}
		}
	})
}
