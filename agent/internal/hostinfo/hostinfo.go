// Package hostinfo identifies the machine for enrolment and the OTLP resource: machine id,
// hostname, OS name and version, kernel release and architecture.
package hostinfo

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Info describes this machine in the words of the enrolment request.
type Info struct {
	MachineID string
	Hostname  string
	OS        string // OpenTelemetry os.type: "linux", "windows"
	OSVersion string // os-release PRETTY_NAME, e.g. "Debian GNU/Linux 12 (bookworm)"
	Kernel    string // uname release, e.g. "6.1.0-18-amd64"
	Arch      string // GOARCH: "amd64", "arm64"
}

// Sources are the files hostinfo reads; tests point them at fixtures.
type Sources struct {
	MachineIDFiles []string // tried in order
	OSReleaseFiles []string // tried in order
	StateDir       string   // holds a generated machine id when no file has one
	// Hostname, when set, names the host instead of the kernel's hostname: in a Kubernetes pod
	// the node's name (the chart sets SPINDLE_HOSTNAME from spec.nodeName).
	Hostname string
}

// HostnameEnv names the node when the agent runs in a container (see Sources.Hostname).
const HostnameEnv = "SPINDLE_HOSTNAME"

// SourcesFor are the standard locations, read first below hostRoot when the agent runs in a
// container with the host's root mounted there (the machine id and os-release are the host's),
// and the hostname from SPINDLE_HOSTNAME when it is set.
func SourcesFor(stateDir, hostRoot string) Sources {
	src := DefaultSources(stateDir)
	if hostRoot != "" {
		under := func(paths []string) []string {
			out := make([]string, 0, 2*len(paths))
			for _, p := range paths {
				out = append(out, filepath.Join(hostRoot, p))
			}
			return append(out, paths...)
		}
		src.MachineIDFiles, src.OSReleaseFiles = under(src.MachineIDFiles), under(src.OSReleaseFiles)
	}
	src.Hostname = strings.TrimSpace(os.Getenv(HostnameEnv))
	return src
}

// DefaultSources are the standard locations (systemd, then D-Bus; os-release and its
// fallback per os-release(5)).
func DefaultSources(stateDir string) Sources {
	return Sources{
		MachineIDFiles: []string{"/etc/machine-id", "/var/lib/dbus/machine-id"},
		OSReleaseFiles: []string{"/etc/os-release", "/usr/lib/os-release"},
		StateDir:       stateDir,
	}
}

// Collect gathers Info. Only a failure to read or persist a machine id is an error:
// the gateway keys the server on it.
func Collect(src Sources) (Info, error) {
	id, err := machineID(src)
	if err != nil {
		return Info{}, err
	}
	host := src.Hostname
	if host == "" {
		if host, err = os.Hostname(); err != nil {
			return Info{}, fmt.Errorf("hostname: %w", err)
		}
	}
	return Info{
		MachineID: id,
		Hostname:  host,
		OS:        runtime.GOOS,
		OSVersion: osVersion(src.OSReleaseFiles),
		Kernel:    kernelRelease(),
		Arch:      runtime.GOARCH,
	}, nil
}

func machineID(src Sources) (string, error) {
	for _, path := range src.MachineIDFiles {
		data, err := os.ReadFile(path)
		if err == nil {
			if id := strings.TrimSpace(string(data)); id != "" {
				return id, nil
			}
		}
	}
	// No system machine id (containers, Windows, minimal images): generate one once and keep
	// it, so re-enrolling keeps the same server and its history.
	path := filepath.Join(src.StateDir, "machine-id")
	data, err := os.ReadFile(path)
	if err == nil && strings.TrimSpace(string(data)) != "" {
		return strings.TrimSpace(string(data)), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("generate machine id: %w", err)
	}
	id := hex.EncodeToString(raw)
	if err := os.MkdirAll(src.StateDir, 0o700); err != nil {
		return "", fmt.Errorf("create state directory %s: %w", src.StateDir, err)
	}
	if err := os.WriteFile(path, []byte(id+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("persist generated machine id: %w", err)
	}
	return id, nil
}

// osVersion returns PRETTY_NAME from the first readable os-release file, else a generic
// name: a missing os-release must not block enrolment.
func osVersion(files []string) string {
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		scanner := bufio.NewScanner(f)
		for scanner.Scan() {
			if value, ok := strings.CutPrefix(scanner.Text(), "PRETTY_NAME="); ok {
				f.Close()
				return strings.Trim(value, `"'`)
			}
		}
		f.Close()
	}
	return platformName()
}
