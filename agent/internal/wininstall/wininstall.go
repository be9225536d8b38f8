// Package wininstall is `spindle-agent install` and `uninstall` on Windows: what install.sh
// does on Linux, in Go so it is tested (under Wine, see e2e/integration/windows-agent.test.ts)
// rather than written in PowerShell. Install enrols (keeping an existing enrolment), restricts
// %ProgramData%\Spindle and agent.yaml to SYSTEM and Administrators, copies the agent to
// %ProgramFiles%\Spindle, registers the SpindleAgent service with restart-on-failure and
// starts it. Running it again converges on the same result; uninstall removes it all.
package wininstall

import (
	"errors"
	"io"
	"time"
)

// Options are the inputs of Install.
type Options struct {
	Token        string // spe_…; needed only when the agent is not enrolled yet
	Gateway      string
	AgentVersion string
	// Executable is the running spindle-agent.exe, copied to the install directory unless it
	// already is the installed one (as when the MSI runs install).
	Executable string
	// NoStart registers the service without starting it.
	NoStart bool
	Out     io.Writer // progress lines for the operator
}

// ServiceTimeout bounds each wait for the service to start or stop (the agent spools its
// interval and drains for up to 5 s on stop).
const ServiceTimeout = 60 * time.Second

// ErrUnsupported: install and uninstall are Windows-only.
var ErrUnsupported = errors.New("spindle-agent install and uninstall are for Windows: on Linux run the installer the console shows (<gateway>/install.sh)")
