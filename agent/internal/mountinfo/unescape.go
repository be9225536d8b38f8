// Package mountinfo holds what every reader of /proc/self/mountinfo needs (the memory-limit
// reader for cgroup mounts, the filesystem collector for local file systems).
package mountinfo

import (
	"strconv"
	"strings"
)

// Unescape decodes mountinfo's octal escapes of a path or device field (\040 for a space, \011,
// \012, \134); anything else is kept as it is.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
