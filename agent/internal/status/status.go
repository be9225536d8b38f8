// Package status is the file the running agent refreshes every tick (state_dir/status.json)
// and `spindle-agent status` reads: the agent's health without a socket or an HTTP port.
package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spindle-io/spindle/agent/internal/atomicfile"
	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/forward"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// File is status.json.
type File struct {
	AgentVersion    string    `json:"agentVersion"`
	PID             int       `json:"pid"`
	StartedAt       time.Time `json:"startedAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
	IntervalSeconds float64   `json:"intervalSeconds"`
	Gateway         string    `json:"gateway"`
	AgentID         string    `json:"agentId"`
	ServerID        string    `json:"serverId"`

	LastCollection  time.Time `json:"lastCollection"`
	LastBatchSeq    uint64    `json:"lastBatchSeq,omitempty"`
	LastExportError string    `json:"lastExportError,omitempty"` // writing the batch to the spool

	Delivery   forward.Status        `json:"delivery"`
	Spool      spool.Stats           `json:"spool"`
	Collectors []Collector           `json:"collectors"`
	Disks      []collector.DiskRates `json:"disks,omitempty"`
	// Capabilities lists what this host lets the agent observe (the eBPF programs), each
	// available or missing with the reason.
	Capabilities []collector.Capability `json:"capabilities"`
	Stopped      bool                   `json:"stopped,omitempty"` // written on a clean shutdown
	// Policy is the cache policy in force and how it is delivered (policy.go).
	Policy *Policy `json:"policy,omitempty"`
}

// Collector is one collector's outcome in the last tick.
type Collector struct {
	Name            string          `json:"name"`
	State           collector.State `json:"state"`
	DurationSeconds float64         `json:"durationSeconds"`
	Error           string          `json:"error,omitempty"`
}

// CollectorsFrom converts the runner's results.
func CollectorsFrom(results []collector.Result) []Collector {
	out := make([]Collector, 0, len(results))
	for _, r := range results {
		c := Collector{Name: r.Name, State: r.State, DurationSeconds: r.Duration.Seconds()}
		if r.Err != nil {
			c.Error = r.Err.Error()
		}
		out = append(out, c)
	}
	return out
}

// Write replaces the status file atomically, so `status` never reads half of it.
func Write(path string, f File) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode status: %w", err)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// ErrNeverRan means no agent has written a status file yet.
var ErrNeverRan = errors.New("the agent has not run yet")

// Read loads the status file.
func Read(path string) (File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, fmt.Errorf("%w (no %s): start it with systemctl start spindle-agent, or spindle-agent run --config <path> in the foreground", ErrNeverRan, path)
	}
	if err != nil {
		return File{}, fmt.Errorf("read status: %w", err)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return File{}, fmt.Errorf("status file %s is not valid JSON: %w", path, err)
	}
	return f, nil
}
