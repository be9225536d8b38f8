package upgrade

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// InstallMethodEnv names how the agent was installed when a container image sets it
// ("kubernetes"); packages write installMethodFile instead.
const InstallMethodEnv = "SPINDLE_INSTALL_METHOD"

// installMethodFile, relative to the binary's directory: the .deb and .rpm install
// /usr/lib/spindle-agent/install-method beside /usr/bin/spindle-agent.
var installMethodFile = filepath.Join("..", "lib", "spindle-agent", "install-method")

// InstallMethod says how this agent was installed: script (install.sh), windows (the installer
// command or the MSI), deb, rpm or kubernetes. Only the first two replace their own binary; a
// package manager or an image owns the others'.
func InstallMethod(executable string) string {
	if method := strings.TrimSpace(os.Getenv(InstallMethodEnv)); method != "" {
		return method
	}
	if data, err := os.ReadFile(filepath.Join(filepath.Dir(executable), installMethodFile)); err == nil {
		if method := strings.TrimSpace(string(data)); method != "" {
			return method
		}
	}
	if runtime.GOOS == "windows" {
		return "windows"
	}
	return "script"
}

// selfReplacing: the install methods whose binary the agent may replace itself.
func selfReplacing(method string) bool { return method == "script" || method == "windows" }

// manualHint says how an agent installed by method is upgraded instead (as the console says it).
func manualHint(method string) string {
	switch method {
	case "deb":
		return "installed from the apt repository: upgrade it with apt-get install spindle-agent"
	case "rpm":
		return "installed from the yum repository: upgrade it with dnf upgrade spindle-agent"
	case "kubernetes":
		return "runs in Kubernetes: upgrade the chart's agent image (helm upgrade)"
	}
	return "installed by " + method + ": upgrade it the way it was installed"
}

// executablePath is the binary this process runs, links resolved (the file a swap replaces).
func executablePath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(exe)
}
