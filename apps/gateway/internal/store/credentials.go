package store

import (
	"context"
	"sync"
	"time"
)

// Credentials is the one place a credential is checked: /v1/metrics and every OpAMP message
// (plain-HTTP polls, WebSocket upgrades, and each message on a long-lived WebSocket) call Check.
// A credential that authenticated is remembered for TTL, so an agent's steady stream of messages
// does not cost a query each; a revoked or rotated credential therefore stops working within
// TTL. Failures are never cached. The cache holds at most MaxEntries credentials; when full, the
// expired ones go, and if none has expired a newcomer is checked without being remembered.
// Writes re-check the credential under the agent row's lock (WriteBatches), so nothing is ever
// written for a credential revoked before the write.
type Credentials struct {
	lookup     func(ctx context.Context, credentialHash []byte) (Agent, error)
	ttl        time.Duration
	maxEntries int
	now        func() time.Time

	mu      sync.Mutex
	entries map[string]credentialEntry
}

type credentialEntry struct {
	agent   Agent
	expires time.Time
}

// Defaults: revocation takes effect within 10 s; 100,000 agents fit.
const (
	DefaultCredentialTTL        = 10 * time.Second
	DefaultCredentialCacheLimit = 100_000
)

// NewCredentials caches lookup (normally (*Store).AuthenticateAgent). ttl <= 0 disables caching.
func NewCredentials(lookup func(ctx context.Context, credentialHash []byte) (Agent, error), ttl time.Duration, maxEntries int) *Credentials {
	return &Credentials{lookup: lookup, ttl: ttl, maxEntries: maxEntries, now: time.Now, entries: map[string]credentialEntry{}}
}

// Check returns the agent the credential belongs to, or ErrUnknownCredential /
// ErrRevokedCredential, or an error wrapping the database's.
func (c *Credentials) Check(ctx context.Context, credentialHash []byte) (Agent, error) {
	key := string(credentialHash)
	now := c.now()
	c.mu.Lock()
	entry, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(entry.expires) {
		return entry.agent, nil
	}
	agent, err := c.lookup(ctx, credentialHash)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		delete(c.entries, key)
		return Agent{}, err
	}
	if c.ttl <= 0 {
		return agent, nil
	}
	if _, present := c.entries[key]; !present && len(c.entries) >= c.maxEntries {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
	}
	if len(c.entries) < c.maxEntries {
		c.entries[key] = credentialEntry{agent: agent, expires: now.Add(c.ttl)}
	}
	return agent, nil
}

// Freshness says what the cache knows of a credential without asking the database.
type Freshness int

const (
	// Unknown: never checked here, or last seen failing.
	Unknown Freshness = iota
	// Stale: it authenticated before, and its TTL has run out (an agent's steady traffic after
	// the cache entry aged); the gateway re-checks these ahead of unknown credentials.
	Stale
	// Fresh: it authenticated within TTL; Check answers without a query.
	Fresh
)

// Known reports what the cache knows of a credential, without a query.
func (c *Credentials) Known(credentialHash []byte) Freshness {
	c.mu.Lock()
	entry, ok := c.entries[string(credentialHash)]
	c.mu.Unlock()
	switch {
	case !ok:
		return Unknown
	case c.now().Before(entry.expires):
		return Fresh
	default:
		return Stale
	}
}

// Recheck asks the database whatever the cache holds, and remembers the answer as Check does:
// for requests that must see a revocation or expiry at once (renewal).
func (c *Credentials) Recheck(ctx context.Context, credentialHash []byte) (Agent, error) {
	c.mu.Lock()
	delete(c.entries, string(credentialHash))
	c.mu.Unlock()
	return c.Check(ctx, credentialHash)
}

// TTL is how long a checked credential is trusted.
func (c *Credentials) TTL() time.Duration { return c.ttl }

// Remember records a credential that a batch check (Store.AuthenticateAgents) found valid, as
// Check would have, so the next Check of it costs no query.
func (c *Credentials) Remember(agent Agent) {
	if c.ttl <= 0 {
		return
	}
	key := string(agent.CredentialHash)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, present := c.entries[key]; present || len(c.entries) < c.maxEntries {
		c.entries[key] = credentialEntry{agent: agent, expires: c.now().Add(c.ttl)}
	}
}

// Forget drops a credential from the cache, so one this gateway has just replaced (renewal)
// stops working here at once rather than after TTL.
func (c *Credentials) Forget(credentialHash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, string(credentialHash))
}

// ForgetAgent drops every cached credential of the agent, so a revocation announced by the
// database (opamp's AgentAccessRevokedChannel) takes effect on the connections using this cache
// at once. (Exports need no such help: writes re-check the credential under the agent's lock.)
func (c *Credentials) ForgetAgent(agentID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, entry := range c.entries {
		if entry.agent.ID == agentID {
			delete(c.entries, key)
		}
	}
}
