//go:build !linux

package collector

import "github.com/spindle-io/spindle/agent/internal/bpf/pagecache"

// statFileID is never reached off Linux: the page-cache program does not load.
func statFileID(string) (pagecache.FileID, bool) { return pagecache.FileID{}, false }
