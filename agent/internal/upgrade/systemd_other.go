//go:build !linux

package upgrade

import "errors"

var errNoSystemd = errors.New("systemd exists only on Linux")

func underSystemd() bool                    { return false }
func systemdUnitOf(fallback string) string  { return fallback }
func launchSystemd(string, []string) error  { return errNoSystemd }
func newSystemd(Restart) (Restarter, error) { return nil, errNoSystemd }
