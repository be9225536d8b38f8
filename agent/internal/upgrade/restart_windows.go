package upgrade

import (
	"context"
	"errors"
	"fmt"

	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/spindle-io/spindle/agent/internal/winservice"
)

const windowsServiceName = winservice.Name

// serviceTimeout bounds a stop or start of the service.
const serviceTimeout = 60 * time.Second

// windowsService restarts the SpindleAgent service. A running executable cannot be overwritten
// on Windows, so the watchdog stops the service before the swap and starts it after.
type windowsService struct{}

func newWindowsService(Restart) (Restarter, error) { return windowsService{}, nil }

func (windowsService) SwapWhileRunning() bool { return false }

func (windowsService) Stop(context.Context) error  { return winservice.Stop(serviceTimeout) }
func (windowsService) Start(context.Context) error { return winservice.Start(serviceTimeout) }

func (windowsService) Exited(context.Context) (bool, string) {
	running, err := winservice.Running()
	if err != nil || running {
		return false, ""
	}
	return true, "the " + winservice.Name + " service stopped (the event log says why)"
}

func newDetached(Restart, string, string) (Restarter, error) {
	return nil, errors.New("on Windows the agent runs as the SpindleAgent service: upgrade.restart must be auto or windows-service")
}

func launchDetached(Restart, string, []string) error {
	return errors.New("on Windows the watchdog is started beside the service")
}

// launchWindows starts the watchdog detached from the service's process, so stopping the service
// does not end it.
func launchWindows(previous string, args []string) error {
	cmd := exec.Command(previous, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the upgrade watchdog: %w", err)
	}
	return cmd.Process.Release()
}

func launch(r Restart, previous string, args []string) error {
	if r.Method != "windows-service" {
		return fmt.Errorf("on Windows the agent restarts as the SpindleAgent service, not %q", r.Method)
	}
	return launchWindows(previous, args)
}
