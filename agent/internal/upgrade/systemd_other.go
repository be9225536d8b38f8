//go:build !linux

package upgrade

import "errors"

var errNoSystemd = errors.New("systemd exists only on Linux")

func underSystemd() bool                   { return false }
func systemdUnitOf(fallback string) string { return fallback }

//lint:ignore U1000 launch calls it on the Unix systems other than Linux (service_other.go)
func launchSystemd(string, []string) error  { return errNoSystemd }
func newSystemd(Restart) (Restarter, error) { return nil, errNoSystemd }
