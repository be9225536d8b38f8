// Package credential holds the agent's bearer credential while it runs. The credential is
// renewed in the background (docs/agent-protocol.md, "Credential renewal"), and the old one stops
// working at once, so every path that authenticates (OTLP forwarder, OpAMP, proof runs) reads it
// from one Holder per request instead of keeping a copy from startup.
package credential

import (
	"sync"
	"time"
)

// Holder is the current credential; safe for concurrent use. The zero value holds nothing.
type Holder struct {
	mu        sync.RWMutex
	secret    string
	issuedAt  time.Time // when this agent received it; zero when unknown
	expiresAt time.Time // when the gateway stops accepting it; zero when unknown
}

// NewHolder starts with the credential read from the config.
func NewHolder(secret string, issuedAt, expiresAt time.Time) *Holder {
	return &Holder{secret: secret, issuedAt: issuedAt, expiresAt: expiresAt}
}

// Secret is the credential to send now (spa_…).
func (h *Holder) Secret() string {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.secret
}

// Times are when the current credential was issued and when it expires (zero when unknown).
func (h *Holder) Times() (issuedAt, expiresAt time.Time) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.issuedAt, h.expiresAt
}

// Set replaces the credential; callers save it to the config first, so a restart never goes
// back to one the gateway has already replaced.
func (h *Holder) Set(secret string, issuedAt, expiresAt time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.secret, h.issuedAt, h.expiresAt = secret, issuedAt, expiresAt
}
