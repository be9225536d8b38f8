package opamp

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"time"
)

// PolicyChangedChannel is NOTIFYed by server_effective_policies' trigger with
// {"serverId": …, "hash": …} whenever a server's effective policy gets a new hash.
const PolicyChangedChannel = "spindle_effective_policy_changed"

type policyChanged struct {
	ServerID string `json:"serverId"`
	Hash     string `json:"hash"`
}

// listen keeps one LISTEN connection per gateway process, so every gateway hears every policy
// change and revocation and acts on the agents connected to it. After each (re)connection it
// also checks every connected agent, since what was announced while not listening is lost.
func (s *Server) listen(ctx context.Context) {
	failures := 0
	for ctx.Err() == nil {
		conn, err := s.settings.Store.Listen(ctx, PolicyChangedChannel, AgentAccessRevokedChannel, UpgradeChangedChannel)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			delay := s.backoff(failures)
			s.settings.Logger.Warn("cannot listen for policy changes; retrying", "error", err, "retry_in", delay.String())
			sleep(ctx, delay)
			continue
		}
		failures = 0
		s.settings.Logger.Info("listening for policy changes and revocations", "channels", []string{PolicyChangedChannel, AgentAccessRevokedChannel})
		s.settings.Callbacks.OnListening()
		s.resync(ctx)
		// Waiting with a cancellable context costs a goroutine hand-off per notification, which a
		// gateway busy with thousands of agents' replies schedules late: a fleet-wide change
		// arrived at ~500 notifications/s. Wait without one; shutdown closes the socket instead.
		stopWaiting := context.AfterFunc(ctx, func() { _ = conn.PgConn().Conn().Close() })
		for {
			notification, err := conn.WaitForNotification(context.Background())
			if err != nil {
				if ctx.Err() == nil {
					s.settings.Logger.Warn("lost the policy-change listener; reconnecting", "error", err)
				}
				break
			}
			if notification.Channel == AgentAccessRevokedChannel {
				s.onAccessRevoked(notification.Payload)
				continue
			}
			if notification.Channel == UpgradeChangedChannel {
				s.onUpgradeChanged(notification.Payload)
				continue
			}
			var change policyChanged
			if err := json.Unmarshal([]byte(notification.Payload), &change); err != nil || change.ServerID == "" {
				s.settings.Logger.Warn("ignored a malformed policy-change notification", "payload", notification.Payload)
				continue
			}
			if s.registry.has(change.ServerID) {
				s.fanout.add(change.ServerID)
			}
		}
		stopWaiting()
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = conn.Close(closeCtx)
		cancel()
		if ctx.Err() == nil {
			sleep(ctx, s.settings.ListenRetryMin)
		}
	}
}

// backoff doubles from ListenRetryMin up to ListenRetryMax, with equal jitter.
func (s *Server) backoff(failures int) time.Duration {
	d := s.settings.ListenRetryMin << min(failures-1, 10)
	if d > s.settings.ListenRetryMax || d <= 0 {
		d = s.settings.ListenRetryMax
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
