package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/credential"
	"github.com/spindle-io/spindle/apps/gateway/internal/groupcommit"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// Exports relayed by an OpenTelemetry Collector (docs/agent-protocol.md, "Through a
// Collector"): the request carries the Collector's relay credential (spr_…, configured with
// SPINDLE_RELAY_CREDENTIALS) and many agents' ResourceMetrics, each with its agent's own
// credential in the resource attribute spindle.agent.credential and its own batch sequence.
// Each agent's resources are all or nothing and exactly once by sequence, as a direct export;
// one agent's refusal never costs another its batches.

// relayCredentials holds the SHA-256 of every accepted relay credential.
type relayCredentials [][sha256.Size]byte

func newRelayCredentials(secrets []string) relayCredentials {
	out := make(relayCredentials, 0, len(secrets))
	for _, s := range secrets {
		out = append(out, sha256.Sum256([]byte(s)))
	}
	return out
}

// accepts compares in constant time against every configured credential.
func (r relayCredentials) accepts(secret string) bool {
	sum := sha256.Sum256([]byte(secret))
	ok := 0
	for _, known := range r {
		ok |= subtle.ConstantTimeCompare(sum[:], known[:])
	}
	return ok == 1
}

// relayCredential returns the spr_ relay credential of the Authorization header, or "".
func relayCredential(r *http.Request) string {
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	secret = strings.TrimSpace(secret)
	if !credential.LooksLike(secret, credential.RelayPrefix) {
		return ""
	}
	return secret
}

// relayedAgent is one agent's part of a relayed request.
type relayedAgent struct {
	agent     store.Agent
	resources []int
	batches   []telemetry.Batch
	points    int64
	refused   error // refused for good: the Collector must not send it again
	transient bool  // the database or the gateway could not take it now: the Collector retries
	result    store.WriteResult
}

func (s *server) handleRelayedMetrics(w http.ResponseWriter, r *http.Request, secret string) {
	if !s.relays.accepts(secret) {
		writeError(w, http.StatusUnauthorized, reasonUnauthenticated,
			"the relay credential is not one of this gateway's SPINDLE_RELAY_CREDENTIALS; set the Collector's otlphttp headers to one of them")
		return
	}
	body, encoding, release, ok := s.receiveExport(w, r, "relayed export refused")
	if !ok {
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), writeTimeout)
	defer cancel()

	metrics, err := ingest.Decode(body, encoding)
	if err != nil {
		s.log.Warn("relayed export refused", "remote", r.RemoteAddr, "error", err)
		writeError(w, http.StatusBadRequest, reasonMalformed, err.Error())
		return
	}
	agents, refusals := s.sortRelayed(ctx, metrics)
	s.writeRelayed(ctx, agents)

	var rejected int64
	var messages []string
	messages = append(messages, refusals.messages...)
	rejected += refusals.points
	for _, a := range agents {
		switch {
		case a.transient:
			// Written members are acknowledged as replays when the Collector sends the request
			// again; the refused ones are refused again. Nothing is written twice.
			writeDatabaseUnavailable(w)
			return
		case a.refused != nil:
			rejected += a.points
			messages = append(messages, fmt.Sprintf("resources %v: %v", a.resources, a.refused))
		}
	}
	s.log.Debug("relayed export written", "agents", len(agents), "rejected_points", rejected)
	response, err := ingest.EncodeSuccess(encoding)
	if rejected > 0 {
		response, err = ingest.EncodeRejected(encoding, rejected, strings.Join(messages, "; "))
	}
	writeExportResponse(w, s.log, encoding, response, err)
}

// relayRefusals are resources refused before their agent was known (no or a malformed credential).
type relayRefusals struct {
	points   int64
	messages []string
}

// sortRelayed authenticates, bounds and maps each resource, and gathers them per agent. An
// agent with one refused resource has all its resources of this request refused (all or nothing).
func (s *server) sortRelayed(ctx context.Context, metrics *otlp.Metrics) ([]*relayedAgent, relayRefusals) {
	var refusals relayRefusals
	byID := map[string]*relayedAgent{}
	var agents []*relayedAgent
	for i, one := range ingest.SplitResources(metrics) {
		points := ingest.PointCount(one)
		secret := ingest.TakeAgentCredential(&one.ResourceMetrics[0].Resource)
		if !credential.LooksLike(secret, credential.AgentPrefix) {
			refusals.points += points
			refusals.messages = append(refusals.messages, fmt.Sprintf("resource %d: no agent credential in the resource attribute %s; set the agent's export.via_collector", i, ingest.AgentCredentialAttribute))
			continue
		}
		agent, err := s.credentials.Check(ctx, credential.Hash(secret))
		a := byID[agent.ID]
		if err != nil {
			// Unknown credentials have no agent to gather under: each is its own refusal.
			a = &relayedAgent{}
			agents = append(agents, a)
			if store.IsUnavailable(err) || ctx.Err() != nil {
				a.transient = true
			} else {
				a.refused = authRefusal(err)
			}
		} else if a == nil {
			a = &relayedAgent{agent: agent}
			byID[agent.ID] = a
			agents = append(agents, a)
		}
		a.resources = append(a.resources, i)
		a.points += points
		if a.refused != nil || a.transient {
			continue
		}
		if err := ingest.CheckBounds(one, s.bounds, time.Now()); err != nil {
			a.refused = fmt.Errorf("out of bounds, nothing of this agent was written: %w", err)
			continue
		}
		request, err := ingest.Map(one)
		if err != nil {
			a.refused = fmt.Errorf("malformed, nothing of this agent was written: %w", err)
			continue
		}
		a.batches = append(a.batches, request.Batches...)
	}
	return agents, refusals
}

// writeRelayed hands every agent's batches to the group commit at once, so they share groups.
func (s *server) writeRelayed(ctx context.Context, agents []*relayedAgent) {
	var wg sync.WaitGroup
	for _, a := range agents {
		if a.refused != nil || a.transient || len(a.batches) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			result, err := s.groupWrites.Write(ctx, a.agent, a.batches)
			switch {
			case err == nil:
				a.result = result
				var written []telemetry.Batch
				for _, b := range a.batches {
					if b.Seq > result.PreviousHWM {
						written = append(written, b)
					}
				}
				s.recent.record(a.agent.ID, written)
			case store.IsUnavailable(err) || ctx.Err() != nil || errors.Is(err, groupcommit.ErrClosed):
				a.transient = true
			case errors.Is(err, store.ErrUnknownCredential) || errors.Is(err, store.ErrRevokedCredential):
				a.refused = authRefusal(err)
			default:
				s.log.Error("relayed export failed", "agent_id", a.agent.ID, "error", err)
				a.refused = errors.New("the database refused the batches; the gateway log has the details")
			}
		}()
	}
	wg.Wait()
}

// authRefusal says why a resource's agent credential buys nothing, without repeating it.
func authRefusal(err error) error {
	switch {
	case errors.Is(err, store.ErrExpiredCredential):
		return errors.New("the agent credential expired; re-enrol the agent")
	case errors.Is(err, store.ErrRevokedCredential):
		return errors.New("the agent credential was revoked in the console")
	default:
		return errors.New("the agent credential is unknown; re-enrol the agent")
	}
}
