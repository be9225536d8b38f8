// Package accel holds what the acceleration features (readcache, writeopt) share: the
// "unsupported" sentinel and finding the files a set of policy patterns names.
package accel

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// ErrUnsupported means a feature cannot work on this OS, kernel or file system. The agent
// reports it as a capability (and a policy needing it as FAILED with the message), never a crash.
var ErrUnsupported = errors.New("not supported on this system")

// LiteralPrefix is the directory part of a pattern before its first wildcard segment: every path
// the pattern matches lies at or beneath it, so it is where a walk or a watch starts.
func LiteralPrefix(pattern string) string {
	segments := strings.Split(pattern, "/")
	for i, segment := range segments {
		if strings.ContainsAny(segment, "*?[") {
			prefix := strings.Join(segments[:i], "/")
			if prefix == "" {
				return "/"
			}
			return prefix
		}
	}
	return pattern
}

// MatchAny reports whether path matches one of the patterns (policy.MatchesPattern semantics).
func MatchAny(patterns []string, path string) bool {
	for _, pattern := range patterns {
		if policy.MatchesPattern(pattern, path) {
			return true
		}
	}
	return false
}

// RegularFiles lists, sorted, the regular files beneath the patterns' literal prefixes for which
// keep returns true. Unreadable directories are skipped: a policy may name paths that do not
// exist yet. At most limit files are returned (0: no limit); truncated says whether it stopped.
func RegularFiles(patterns []string, keep func(path string) bool, limit int) (files []string, truncated bool) {
	seen := map[string]bool{}
	var roots []string
	for _, pattern := range patterns {
		roots = append(roots, filepath.FromSlash(LiteralPrefix(pattern)))
	}
	sort.Strings(roots)
	errLimit := errors.New("limit")
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || seen[path] {
				return nil
			}
			slashed := filepath.ToSlash(path)
			if !keep(slashed) {
				return nil
			}
			seen[path] = true
			files = append(files, slashed)
			if limit > 0 && len(files) >= limit {
				return errLimit
			}
			return nil
		})
		if errors.Is(err, errLimit) {
			truncated = true
			break
		}
	}
	sort.Strings(files)
	return files, truncated
}

// FileSize is the size of a regular file, or false when it is gone or not regular.
func FileSize(path string) (int64, bool) {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return 0, false
	}
	return info.Size(), true
}
