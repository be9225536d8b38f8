package policystate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// Manager holds the policy in force and changes it atomically. Safe for concurrent use.
type Manager struct {
	path     string
	appliers []Applier
	now      func() time.Time

	mu      sync.Mutex
	current policy.Policy
	lkg     LastKnownGood
	has     bool
	refused Refusal
}

// Refusal is the last policy refused, kept for status until a later one applies.
type Refusal struct {
	Hash    string    `json:"hash"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// State is what status shows about the policy.
type State struct {
	// Hash and AppliedAt of the policy in force; empty before the first policy.
	Hash      string    `json:"hash,omitempty"`
	AppliedAt time.Time `json:"appliedAt,omitzero"`
	// Document is the policy in force, as received.
	Document json.RawMessage `json:"document,omitempty"`
	// Refused is the newest policy this agent refused, if it came after the one in force.
	Refused *Refusal `json:"refused,omitempty"`
}

// NewManager returns a manager whose policy in force is the defaults until Restore or Apply.
// path is state_dir/policy.json.
func NewManager(path string, appliers ...Applier) *Manager {
	return &Manager{path: path, appliers: appliers, now: time.Now, current: policy.Default()}
}

// Restore applies the last known good policy, if any: called at start, before connecting, so
// the policy is in force whether or not the gateway answers.
func (m *Manager) Restore(ctx context.Context) (bool, error) {
	lkg, ok, err := Load(m.path)
	if err != nil || !ok {
		return false, err
	}
	p, err := policy.Parse(lkg.Document)
	if err != nil {
		return false, fmt.Errorf("last known good policy %s no longer parses (delete it; the gateway sends the policy again): %w", m.path, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.applyLocked(ctx, p); err != nil {
		return false, fmt.Errorf("last known good policy %s: %w", lkg.Hash, err)
	}
	m.current, m.lkg, m.has = p, lkg, true
	return true, nil
}

// Apply validates the document, checks it against every applier, applies it, and on success
// saves it as last known good. The returned error is the message for the person who wrote the
// policy (OpAMP RemoteConfigStatus.error_message). Applying the policy already in force again
// changes nothing.
func (m *Manager) Apply(ctx context.Context, document []byte, hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.has && hash == m.lkg.Hash {
		return nil
	}
	err := m.applyDocument(ctx, document, hash)
	if err != nil {
		m.refused = Refusal{Hash: hash, Message: err.Error(), At: m.now()}
	}
	return err
}

func (m *Manager) applyDocument(ctx context.Context, document []byte, hash string) error {
	p, err := policy.Parse(document)
	if err != nil {
		return fmt.Errorf("the agent refused the policy, the previous one stays in force: %w", err)
	}
	if err := m.applyLocked(ctx, p); err != nil {
		return fmt.Errorf("the agent refused the policy, the previous one stays in force: %w", err)
	}
	lkg := LastKnownGood{Hash: hash, Document: append(json.RawMessage{}, document...), AppliedAt: m.now().UTC()}
	if err := save(m.path, lkg); err != nil {
		// In force now, but would not survive a restart: say so rather than pretend.
		rollbackErr := m.rollback(ctx, len(m.appliers), m.current)
		return errors.Join(fmt.Errorf("the policy was not applied because the agent could not keep it across restarts: %w", err), rollbackErr)
	}
	m.current, m.lkg, m.has, m.refused = p, lkg, true, Refusal{}
	return nil
}

// applyLocked checks, then applies in order, rolling back to m.current on failure.
func (m *Manager) applyLocked(ctx context.Context, p policy.Policy) error {
	var refusals []error
	for _, a := range m.appliers {
		if err := a.Check(p); err != nil {
			refusals = append(refusals, fmt.Errorf("%s: %w", a.Name(), err))
		}
	}
	if len(refusals) > 0 {
		return errors.Join(refusals...)
	}
	for i, a := range m.appliers {
		if err := a.Apply(ctx, p); err != nil {
			failure := fmt.Errorf("%s could not be applied: %w", a.Name(), err)
			if rollbackErr := m.rollback(ctx, i, m.current); rollbackErr != nil {
				return errors.Join(failure, rollbackErr)
			}
			return failure
		}
	}
	return nil
}

// rollback re-applies previous to the first n appliers, newest first.
func (m *Manager) rollback(ctx context.Context, n int, previous policy.Policy) error {
	var errs []error
	for i := n - 1; i >= 0; i-- {
		if err := m.appliers[i].Apply(ctx, previous); err != nil {
			errs = append(errs, fmt.Errorf("rolling %s back to the previous policy also failed, restart the agent to reload the last known good policy: %w", m.appliers[i].Name(), err))
		}
	}
	return errors.Join(errs...)
}

// Current returns the policy in force (the defaults before the first one).
func (m *Manager) Current() policy.Policy {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.current
}

// LastKnownGood returns the policy in force as received; ok is false before the first one.
func (m *Manager) LastKnownGood() (LastKnownGood, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lkg, m.has
}

// State is the policy's part of status.json.
func (m *Manager) State() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := State{Hash: m.lkg.Hash, AppliedAt: m.lkg.AppliedAt, Document: m.lkg.Document}
	if m.refused.Hash != "" {
		r := m.refused
		s.Refused = &r
	}
	return s
}
