//go:build !windows

package upgrade

import "errors"

var errNoWindowsService = errors.New("the Windows service exists only on Windows")

func newWindowsService(Restart) (Restarter, error) { return nil, errNoWindowsService }
func launchWindows(string, []string) error         { return errNoWindowsService }

// launch starts the watchdog where it survives the agent's restart.
func launch(r Restart, previous string, args []string) error {
	if r.Method == "systemd" {
		return launchSystemd(previous, args)
	}
	return launchDetached(r, previous, args)
}
