package upgrade

import (
	"bufio"
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

// dpkgFileList is where dpkg lists the files of the spindle-agent package it installed: a binary
// named there is dpkg's even when the install-method file is gone (deleted by hand, or a package
// built before it shipped one).
var dpkgFileList = "/var/lib/dpkg/info/spindle-agent.list"

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
	if listedByDpkg(executable) {
		return "deb"
	}
	if runtime.GOOS == "windows" {
		return "windows"
	}
	return "script"
}

// listedByDpkg: dpkg's file list of the spindle-agent package names this binary.
func listedByDpkg(executable string) bool {
	f, err := os.Open(dpkgFileList)
	if err != nil {
		return false
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if listed := strings.TrimSpace(lines.Text()); listed != "" && listed == executable {
			return true
		}
	}
	return false
}

// selfReplacing: the install methods whose binary the agent may replace itself.
func selfReplacing(method string) bool { return method == "script" || method == "windows" }

// manualHint says how an agent installed by method is upgraded instead (as the console says it).
// A package manager owns its binary: replacing it behind dpkg's or rpm's back would make
// `dpkg -V` report it changed and the next package upgrade silently take the server back.
func manualHint(method string) string {
	switch method {
	case "deb":
		return "managed by apt (installed from the .deb): upgrade it on the server with apt-get update && apt-get install --only-upgrade spindle-agent"
	case "rpm":
		return "managed by rpm (installed from the .rpm): upgrade it on the server with dnf upgrade spindle-agent, or rpm -Uvh the release's .rpm from the gateway's /download/<version>/"
	case "kubernetes":
		return "runs in Kubernetes: upgrade the chart's agent image (helm upgrade)"
	}
	return "installed by " + method + ": upgrade it the way it was installed"
}

// refusalFor is the status an offer of version gets from an agent installed by method that does not
// replace its own binary: the command that installs exactly that version, where there is one.
func refusalFor(method, reason, version string) string {
	switch method {
	case "deb":
		return "managed by apt (installed from the .deb), so it does not replace its own binary: run apt-get update && apt-get install spindle-agent=" +
			version + " on the server"
	case "rpm":
		return "managed by rpm (installed from the .rpm), so it does not replace its own binary: run dnf install spindle-agent-" + version +
			" on the server, or rpm -Uvh the .rpm from the gateway's /download/" + version + "/"
	}
	return reason
}

// executablePath is the binary this process runs, links resolved (the file a swap replaces).
func executablePath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(exe)
}
