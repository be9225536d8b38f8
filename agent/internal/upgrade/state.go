package upgrade

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spindle-io/spindle/agent/internal/atomicfile"
)

// Phase is how far an upgrade got; the agent and its watchdog hand over through the state file.
type Phase string

const (
	// PhaseStaged: verified and staged by the agent; the watchdog takes over from here.
	PhaseStaged Phase = "staged"
	// PhaseRestarting: the watchdog swapped the binary and started the new agent.
	PhaseRestarting Phase = "restarting"
	// PhaseHealthy: the new agent connected and the gateway answered it.
	PhaseHealthy Phase = "healthy"
	// PhaseInstalled: the watchdog saw it healthy; the upgrade is done.
	PhaseInstalled Phase = "installed"
	// PhaseRolledBack: the new agent did not come up healthy; the previous one runs again.
	PhaseRolledBack Phase = "rolled_back"
	// PhaseFailed: the watchdog could not swap or restart; nothing changed.
	PhaseFailed Phase = "failed"
)

// Finished says whether the phase ends an upgrade.
func (p Phase) Finished() bool {
	return p == PhaseInstalled || p == PhaseRolledBack || p == PhaseFailed
}

// Restart is how the watchdog stops and starts the agent.
type Restart struct {
	Method      string `json:"method"`                // config.Restart* (never auto here)
	SystemdUnit string `json:"systemdUnit,omitempty"` // systemd
	ServiceName string `json:"serviceName,omitempty"` // windows-service
	PIDFile     string `json:"pidFile,omitempty"`     // detached
	LogFile     string `json:"logFile,omitempty"`     // detached
	AgentPID    int    `json:"agentPid,omitempty"`    // detached: the agent to stop
}

// State is the upgrade in progress or the last one (upgrade/state.json).
type State struct {
	OfferHash     string        `json:"offerHash"`
	From          string        `json:"from"`
	To            string        `json:"to"`
	Phase         Phase         `json:"phase"`
	Message       string        `json:"message,omitempty"`
	Executable    string        `json:"executable"` // the binary replaced
	Staged        string        `json:"staged"`     // the verified new binary
	Previous      string        `json:"previous"`   // the copy of the binary it replaces
	ConfigPath    string        `json:"configPath"`
	Restart       Restart       `json:"restart"`
	HealthTimeout time.Duration `json:"healthTimeout"`
	StartedAt     time.Time     `json:"startedAt"`
	Deadline      time.Time     `json:"deadline,omitzero"`
	FinishedAt    time.Time     `json:"finishedAt,omitzero"`
}

// Files in the upgrade directory.
const (
	stateFile    = "state.json"
	statusFile   = "status.json"
	failedFile   = "failed-offers.json"
	downloadDir  = "download"
	previousDir  = "previous"
	maxFailedIDs = 32
)

// StatePath is the state file in dir.
func StatePath(dir string) string { return filepath.Join(dir, stateFile) }

// ReadState reads the state file; ok is false when there is none.
func ReadState(path string) (state State, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, fmt.Errorf("read the upgrade state: %w", err)
	}
	if err := json.Unmarshal(data, &state); err != nil {
		return State{}, false, fmt.Errorf("upgrade state %s is not valid JSON: %w", path, err)
	}
	return state, true, nil
}

// WriteState replaces the state file atomically (the agent and the watchdog both write it, each
// at its own steps, never at once; the other may be reading it: retried while it does).
func WriteState(path string, state State) error {
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	return retryWhile(func() error { return atomicfile.Write(path, append(data, '\n'), 0o600) }, transientReplaceError, replaceRetry)
}

func readJSON(path string, into any) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(data, into)
}

func writeJSON(path string, value any) error {
	data, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o600)
}
