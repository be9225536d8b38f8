package config

import (
	"os"
	"path/filepath"
)

// Where the agent keeps its files on Windows: everything under %ProgramData%\Spindle, the
// directory `spindle-agent install` restricts to SYSTEM and Administrators (agent.yaml holds
// the credential).
var (
	DataDir         = filepath.Join(programData(), "Spindle")
	DefaultPath     = filepath.Join(DataDir, "agent.yaml")
	DefaultStateDir = filepath.Join(DataDir, "state")
)

// usesProcfs: proc_path and sys_path mean nothing on Windows, so they are not validated.
const usesProcfs = false

// programData is %ProgramData%, or its fixed default when the variable is unset (a service
// started with a bare environment).
func programData() string {
	if dir := os.Getenv("ProgramData"); dir != "" && filepath.IsAbs(dir) {
		return dir
	}
	return `C:\ProgramData`
}
