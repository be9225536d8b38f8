//go:build !windows

package dbdetect

// HostRegistry: only Windows has a registry.
func HostRegistry() Registry { return nil }
