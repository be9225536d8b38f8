//go:build !windows

package upgrade

// transientReplaceError: a rename over an open file succeeds here, so no failure passes by itself.
func transientReplaceError(error) bool { return false }
