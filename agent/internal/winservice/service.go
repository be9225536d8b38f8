// Package winservice runs the agent as a Windows service and registers it with the service
// control manager: start at boot, restart on failure (recovery actions), an event log source.
// Everything here is Windows-only; other builds get ErrUnsupported, so the commands that use
// it compile everywhere and say what to use instead.
package winservice

import (
	"errors"
	"time"
)

// The service's identity. Name is what `sc.exe query SpindleAgent` and the MSI use; the event
// log source has the same name.
const (
	Name        = "SpindleAgent"
	DisplayName = "Spindle agent"
	Description = "Samples this server's storage I/O and memory and sends it to the Spindle gateway; applies the console's cache policy."
)

// RestartDelays are the recovery actions: restart after each of these on the first, second
// and later failures; the failure count resets after RestartResetPeriod without one.
var RestartDelays = []time.Duration{10 * time.Second, 30 * time.Second, 60 * time.Second}

// RestartResetPeriod is the failure-free time after which the SCM starts counting again.
const RestartResetPeriod = 24 * time.Hour

// ErrUnsupported is returned by every function on systems other than Windows.
//
//lint:ignore ST1005 Windows is a proper noun
var ErrUnsupported = errors.New("Windows services exist only on Windows: on Linux the installer served at <gateway>/install.sh sets up systemd")

// ErrNoRestartOnError: the SCM took the recovery actions but not the flag that applies them
// when the service stops with an error code (Wine 8 refuses that flag).
var ErrNoRestartOnError = errors.New("the service control manager refused restart after an error exit")

// Registration is what Register writes into the service control manager.
type Registration struct {
	// Executable is the absolute path of spindle-agent.exe; Args follow it on the service's
	// command line (run --service --config …).
	Executable string
	Args       []string
}

// Registered is what Register could set up.
type Registered struct {
	// RecoveryActions: the restart-on-failure actions read back as set. RecoveryError says what
	// the SCM refused (wrapping ErrNoRestartOnError when only the error-exit flag was refused),
	// so the caller can say so instead of failing the install.
	RecoveryActions bool
	RecoveryError   error
}
