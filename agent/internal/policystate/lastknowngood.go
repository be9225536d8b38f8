// Package policystate applies the policy the gateway pushes over OpAMP: it checks the policy
// against what this agent and host can do, applies it feature by feature through Appliers,
// rolls back what was applied when one fails, and keeps the last policy that applied
// (last known good) in state_dir/policy.json, so a restart or a lost gateway leaves it in force.
package policystate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spindle-io/spindle/agent/internal/atomicfile"
)

// FileName is the last-known-good policy inside state_dir.
const FileName = "policy.json"

// LastKnownGood is the policy in force: the document as the gateway sent it and its hash
// (lowercase hex SHA-256 of its canonical JSON, computed by the worker; docs/policy.md).
type LastKnownGood struct {
	Hash      string          `json:"hash"`
	Document  json.RawMessage `json:"document"`
	AppliedAt time.Time       `json:"appliedAt"`
}

// Load reads the last-known-good policy; ok is false when there is none yet.
func Load(path string) (lkg LastKnownGood, ok bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return LastKnownGood{}, false, nil
	}
	if err != nil {
		return LastKnownGood{}, false, fmt.Errorf("read last known good policy: %w", err)
	}
	if err := json.Unmarshal(data, &lkg); err != nil || lkg.Hash == "" || len(lkg.Document) == 0 {
		return LastKnownGood{}, false, fmt.Errorf("last known good policy %s is damaged (delete it; the gateway sends the policy again): %v", path, err)
	}
	return lkg, true, nil
}

// save writes atomically with mode 0600: the document names paths on this server.
func save(path string, lkg LastKnownGood) error {
	data, err := json.MarshalIndent(lkg, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save last known good policy: %w", err)
	}
	return nil
}
