package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// Every endpoint goes through one of two gates (issue 25, M1 and M1b):
//
//   - publicEndpoint (installer, downloads, probes, /metrics, unknown paths): every request
//     costs its client address a token of the per-address budget (SPINDLE_RATE_PER_ADDRESS);
//   - agentEndpoint (exports, OpAMP, enrolment, renewal, proof runs): a request costs its address
//     a token only when it fails (a 4xx answer: an unknown credential, a bad token, a malformed
//     body), and an address that has spent its budget gets 429 before anything else is done,
//     except for requests carrying a credential this gateway checked within the TTL. Authenticated
//     agents are limited per credential (SPINDLE_RATE_PER_CREDENTIAL) instead, so 1,000 servers
//     leaving through one NAT address are 1,000 budgets, while guesses from that address are one.
//
// Database work behind the gates runs in admission pools whose sizes add up to the ingest
// pool's connections beside the group commit and enrolment (gatePools), so a flood of any one
// kind waits or gets 429 and never takes the connections the others need:
//
//   - revalidations: credentials this gateway saw authenticate before, whose cache entry aged;
//   - lookups: credentials it has never seen (or saw fail), the only kind a guesser can send;
//   - agentCalls: renewals and proof-run calls;
//   - health: /healthz's ping, shared by concurrent probes (healthCheck).

// gatePools are the admission pools of the gates; each slot is at most one database connection.
type gatePools struct {
	revalidations *admission
	lookups       *admission
	agentCalls    *admission
	downloads     *admission
}

// GateConnections is how many ingest-pool connections the gates' pools and /healthz use at most:
// revalidations 1, lookups 1, agent calls 1, health 1.
const GateConnections = 4

func newGatePools(maxWait time.Duration) gatePools {
	return gatePools{
		// A gateway's restart makes every agent unknown at once: their first lookups queue (one
		// connection answers a few thousand a second) rather than being refused.
		revalidations: newAdmission(1, 1024, maxWait),
		lookups:       newAdmission(1, 1024, maxWait),
		agentCalls:    newAdmission(1, 32, maxWait),
		// Binary downloads hold a file and a connection for as long as the client reads.
		downloads: newAdmission(8, 16, maxWait),
	}
}

// publicEndpoint charges every request to its client address.
func (s *server) publicEndpoint(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.allowAddr(w, r) {
			return
		}
		next(w, r)
	}
}

// agentEndpoint lets through what a spent address may still send (a credential checked within
// the TTL) and charges the address for every failed request.
func (s *server) agentEndpoint(known func(hash []byte) store.Freshness, next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		addr := clientAddr(r, s.trustedProxies)
		fresh := false
		if secret := bearerCredential(r); secret != "" && known != nil {
			fresh = known(credential.Hash(secret)) == store.Fresh
		}
		if !fresh {
			if spent, wait := s.perAddr.exhausted(addr); spent {
				writeRateLimited(w, wait, "this address sent too many requests that failed or carried no valid credential")
				return
			}
		}
		recorder := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(recorder, r)
		if recorder.status >= 400 && recorder.status < 500 && recorder.status != http.StatusTooManyRequests {
			s.perAddr.charge(addr)
		}
	}
}

// checkMode says whether a credential checked within the TTL may be taken from the cache.
type checkMode int

const (
	cachedCheck checkMode = iota
	freshCheck            // ask the database (renewal must see an expiry or revocation at once)
)

// admitAgent authenticates an agent's bearer credential for an agent endpoint: from the cache
// when it was checked within the TTL, otherwise through the revalidation or lookup pool, then
// against the credential's own rate limit. It answers the request itself when it cannot go on.
func (s *server) admitAgent(w http.ResponseWriter, r *http.Request, secret string, mode checkMode) (store.Agent, bool) {
	hash := credential.Hash(secret)
	pool := s.gates.lookups
	check := s.credentials.Check
	switch s.credentials.Known(hash) {
	case store.Fresh:
		pool = nil
		if mode == freshCheck {
			pool, check = s.gates.revalidations, s.credentials.Recheck
		}
	case store.Stale:
		pool = s.gates.revalidations
	}
	if pool != nil {
		release, ok := pool.acquire(r.Context())
		if !ok {
			writeOverloaded(w)
			return store.Agent{}, false
		}
		defer release()
	}
	ctx, cancel := context.WithTimeout(r.Context(), authTimeout)
	defer cancel()
	agent, err := check(ctx, hash)
	if err != nil {
		s.writeAuthError(w, r, err)
		return store.Agent{}, false
	}
	if !s.allowCredential(w, secret) {
		return store.Agent{}, false
	}
	return agent, true
}

// authTimeout bounds one credential check; past it the database counts as down.
const authTimeout = 5 * time.Second

// inAgentCall runs a renewal's or proof-run call's database work in the agent-call pool.
func (s *server) inAgentCall(w http.ResponseWriter, r *http.Request, work func()) {
	release, ok := s.gates.agentCalls.acquire(r.Context())
	if !ok {
		writeOverloaded(w)
		return
	}
	defer release()
	work()
}
