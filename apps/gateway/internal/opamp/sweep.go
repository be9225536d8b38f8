package opamp

import (
	"context"
	"errors"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// sweepChunk bounds the credentials re-checked in one query.
const sweepChunk = 5000

// sweepCredentials re-checks the credential of every WebSocket connected here, a few thousand
// per query: the valid ones stay cached (so the next message's Check costs nothing), the revoked,
// expired or removed ones are forgotten and their connections closed. Without it each agent's
// heartbeat would look its credential up again once the cache entry expired.
func (s *Server) sweepCredentials(ctx context.Context) {
	byHash := map[string][]*agentConnection{}
	for _, c := range s.registry.of("") {
		byHash[string(c.agent.CredentialHash)] = append(byHash[string(c.agent.CredentialHash)], c)
	}
	hashes := make([][]byte, 0, len(byHash))
	for h := range byHash {
		hashes = append(hashes, []byte(h))
	}
	for start := 0; start < len(hashes); start += sweepChunk {
		chunk := hashes[start:min(start+sweepChunk, len(hashes))]
		dbCtx, cancel := context.WithTimeout(ctx, s.settings.DatabaseTimeout)
		checks, err := s.settings.Store.AuthenticateAgents(dbCtx, chunk)
		cancel()
		if err != nil {
			s.settings.Logger.Warn("could not re-check the credentials of OpAMP connections; each message checks its own", "error", err)
			return
		}
		for key, check := range checks {
			if check.Err == nil {
				s.settings.Credentials.Remember(check.Agent)
				continue
			}
			if !errors.Is(check.Err, store.ErrUnknownCredential) && !errors.Is(check.Err, store.ErrRevokedCredential) &&
				!errors.Is(check.Err, store.ErrExpiredCredential) {
				continue
			}
			s.settings.Credentials.Forget([]byte(key))
			for _, c := range byHash[key] {
				c.disconnect("OpAMP connection closed: credential no longer valid", check.Err)
			}
		}
	}
}

// sweepCredentialsEvery runs sweepCredentials at half the credential cache's TTL, so a valid
// credential's entry never expires while its agent is connected. A sweep due while a policy
// change is pushed or confirmed waits for it, by a quarter of the TTL at most (entries checked
// by the previous sweep are then still valid): re-checking 10,000 credentials is two queries
// of 5,000 rows that a fleet-wide change would otherwise wait behind.
func (s *Server) sweepCredentialsEvery(ctx context.Context) {
	ttl := s.settings.Credentials.TTL()
	if ttl <= 0 {
		return // no cache to keep warm: every message checks the database anyway
	}
	every := max(ttl/2, 50*time.Millisecond)
	period, standBackBound := s.timer(waitSweepPeriod), s.timer(waitSweepStandBack)
	for {
		select {
		case <-ctx.Done():
			return
		case <-period(every):
		}
		standBack(ctx, s.changeInFlight, func() <-chan time.Time { return standBackBound(ttl / 4) })
		if ctx.Err() != nil {
			return
		}
		s.sweepCredentials(ctx)
	}
}
