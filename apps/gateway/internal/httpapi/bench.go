package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// Proof runs (docs/agent-protocol.md, "Proof runs"): the agent long-polls /v1/bench/next for a
// run to start or a cancel, posts progress while it runs and the outcome at the end. Every
// request carries the agent's own credential; a run is only ever reachable through the agent
// that took it.

// BenchWaker wakes a long poll when one of the server's runs changes (benchwake.Waker).
type BenchWaker interface {
	Wait(serverID string) (<-chan struct{}, func())
}

const (
	maxBenchWait        = 30 * time.Second
	benchRequestTimeout = 10 * time.Second
	// DefaultMaxBenchReportBytes bounds a final report: steps × passes of a few numbers each
	// fit in far less; anything larger is a broken or hostile agent.
	DefaultMaxBenchReportBytes = 1 << 20
	maxBenchProgressBytes      = 4 << 10
	maxBenchProfilesBytes      = 64 << 10
)

// profileName matches benchmark_runs.profile's CHECK.
var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

type benchProgress struct {
	Fraction *float64 `json:"fraction"`
	Phase    string   `json:"phase"`
}

type benchProfiles struct {
	Profiles []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Kind        string `json:"kind"`
		Source      string `json:"source"`
		Steps       int    `json:"steps"`
	} `json:"profiles"`
	// Paths are the directories the agent allows remote runs in (agent.yaml bench.paths).
	Paths []string `json:"paths"`
}

type benchFinish struct {
	Status string          `json:"status"`
	Report json.RawMessage `json:"report"`
	Error  string          `json:"error"`
}

func (s *server) benchAgent(w http.ResponseWriter, r *http.Request) (store.Agent, bool) {
	secret := bearerCredential(r)
	if secret == "" {
		writeError(w, http.StatusUnauthorized, reasonUnauthenticated,
			"send the agent credential as 'Authorization: Bearer spa_…'; enrol the agent with 'spindle-agent enroll' to get one")
		return store.Agent{}, false
	}
	return s.admitAgent(w, r, secret, cachedCheck)
}

// handleBenchNext answers 200 with a command, or 204 after up to ?wait= seconds without one (at
// once when the gateway begins to shut down).
func (s *server) handleBenchNext(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.benchAgent(w, r)
	if !ok {
		return
	}
	wait := time.Duration(0)
	if raw := r.URL.Query().Get("wait"); raw != "" {
		seconds, err := strconv.Atoi(raw)
		if err != nil || seconds < 0 {
			writeError(w, http.StatusBadRequest, reasonMalformed, "wait must be a whole number of seconds (0-30)")
			return
		}
		wait = min(time.Duration(seconds)*time.Second, maxBenchWait)
	}
	running := r.URL.Query().Get("running")
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		var woken <-chan struct{}
		stop := func() {}
		if s.benchWaker != nil {
			// Subscribe before reading, so a change between the read and the wait is not missed.
			woken, stop = s.benchWaker.Wait(agent.ServerID)
		}
		release, admitted := s.gates.agentCalls.acquire(r.Context())
		if !admitted {
			stop()
			writeOverloaded(w)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), benchRequestTimeout)
		command, err := s.store.NextBenchCommand(ctx, agent, running)
		cancel()
		release()
		if err != nil {
			stop()
			s.writeBenchStoreError(w, r, agent, err)
			return
		}
		if command.Start != nil || command.Cancel != "" {
			stop()
			writeJSON(w, http.StatusOK, command)
			return
		}
		if woken == nil { // no waker (tests, or none configured): look again in a second
			woken = closedAfter(time.After(time.Second))
		}
		select {
		case <-woken:
			stop()
		case <-deadline.C:
			stop()
			w.WriteHeader(http.StatusNoContent)
			return
		case <-s.draining: // the gateway is shutting down: nothing to do; the agent polls another, or this one when back
			stop()
			w.WriteHeader(http.StatusNoContent)
			return
		case <-r.Context().Done():
			stop()
			return
		}
	}
}

func closedAfter(c <-chan time.Time) <-chan struct{} {
	out := make(chan struct{})
	go func() { <-c; close(out) }()
	return out
}

// handleBenchProfiles records the profiles the agent offers, for the console's request form.
func (s *server) handleBenchProfiles(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.benchAgent(w, r)
	if !ok {
		return
	}
	var offered benchProfiles
	if !s.decodeBench(w, r, maxBenchProfilesBytes, &offered) {
		return
	}
	if len(offered.Profiles) == 0 || len(offered.Profiles) > 32 {
		writeError(w, http.StatusBadRequest, reasonMalformed, "send 1 to 32 profiles")
		return
	}
	for _, p := range offered.Profiles {
		if !profileName.MatchString(p.Name) {
			writeError(w, http.StatusBadRequest, reasonMalformed, fmt.Sprintf("profile name %q is not lowercase letters, digits, - or _", p.Name))
			return
		}
	}
	if len(offered.Paths) > 16 {
		writeError(w, http.StatusBadRequest, reasonMalformed, "send at most 16 allowed paths")
		return
	}
	for _, p := range offered.Paths {
		if len(p) == 0 || len(p) > 1024 || !(strings.HasPrefix(p, "/") || (len(p) > 2 && p[1] == ':')) {
			writeError(w, http.StatusBadRequest, reasonMalformed, fmt.Sprintf("allowed path %q is not an absolute directory", p))
			return
		}
	}
	if offered.Paths == nil {
		offered.Paths = []string{}
	}
	profiles, _ := json.Marshal(offered.Profiles)
	paths, _ := json.Marshal(offered.Paths)
	s.inAgentCall(w, r, func() {
		ctx, cancel := context.WithTimeout(r.Context(), benchRequestTimeout)
		defer cancel()
		if err := s.store.RecordBenchProfiles(ctx, agent, profiles, paths); err != nil {
			s.writeBenchStoreError(w, r, agent, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *server) handleBenchProgress(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.benchAgent(w, r)
	if !ok {
		return
	}
	var progress benchProgress
	if !s.decodeBench(w, r, maxBenchProgressBytes, &progress) {
		return
	}
	if progress.Fraction == nil || math.IsNaN(*progress.Fraction) || *progress.Fraction < 0 || *progress.Fraction > 1 {
		writeError(w, http.StatusBadRequest, reasonMalformed, "fraction must be a number from 0 to 1")
		return
	}
	if len(progress.Phase) > 200 {
		writeError(w, http.StatusBadRequest, reasonMalformed, "phase must be at most 200 characters")
		return
	}
	s.inAgentCall(w, r, func() {
		ctx, cancel := context.WithTimeout(r.Context(), benchRequestTimeout)
		defer cancel()
		cancelRun, err := s.store.RecordBenchProgress(ctx, agent, r.PathValue("id"), *progress.Fraction, progress.Phase)
		if err != nil {
			s.writeBenchStoreError(w, r, agent, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"cancel": cancelRun})
	})
}

func (s *server) handleBenchFinish(w http.ResponseWriter, r *http.Request) {
	agent, ok := s.benchAgent(w, r)
	if !ok {
		return
	}
	var finish benchFinish
	if !s.decodeBench(w, r, s.maxBenchReportBytes, &finish) {
		return
	}
	if err := validateFinish(finish); err != nil {
		writeError(w, http.StatusBadRequest, reasonMalformed, err.Error())
		return
	}
	s.inAgentCall(w, r, func() {
		ctx, cancel := context.WithTimeout(r.Context(), benchRequestTimeout)
		defer cancel()
		err := s.store.FinishBenchRun(ctx, agent, r.PathValue("id"), store.BenchOutcome{Status: finish.Status, Report: finish.Report, Error: finish.Error})
		if err != nil {
			s.writeBenchStoreError(w, r, agent, err)
			return
		}
		s.log.Info("proof run finished", "org_id", agent.OrgID, "server_id", agent.ServerID, "run_id", r.PathValue("id"), "status", finish.Status)
		w.WriteHeader(http.StatusNoContent)
	})
}

// validateFinish checks the outcome's shape; the report's content is the bench engine's Report
// and is checked by the console when it is drawn. A failed or cancelled run may bring the
// partial report of the passes it finished.
func validateFinish(finish benchFinish) error {
	trimmed := bytes.TrimSpace(finish.Report)
	hasReport := len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null"))
	if hasReport && trimmed[0] != '{' {
		return errors.New("the report must be a JSON object")
	}
	switch finish.Status {
	case "succeeded":
		if !hasReport {
			return errors.New("a succeeded run needs its report as a JSON object")
		}
	case "failed", "cancelled":
		if finish.Status == "failed" && finish.Error == "" {
			return errors.New("a failed run needs an error saying why")
		}
	default:
		return fmt.Errorf("status must be succeeded, failed or cancelled, not %q", finish.Status)
	}
	return nil
}

func (s *server) decodeBench(w http.ResponseWriter, r *http.Request, limit int64, into any) bool {
	body, err := s.readBodyFirst(w, r, limit)
	if err != nil {
		writeBodyError(w, err)
		return false
	}
	decoder := json.NewDecoder(bytes.NewReader(body))
	decoder.DisallowUnknownFields()
	if err := decoder.Decode(into); err != nil {
		writeError(w, http.StatusBadRequest, reasonMalformed, "the body is not the JSON this endpoint takes: "+err.Error())
		return false
	}
	return true
}

func (s *server) writeBenchStoreError(w http.ResponseWriter, r *http.Request, agent store.Agent, err error) {
	switch {
	case r.Context().Err() != nil:
		return // the agent hung up (it stopped posting progress when its run ended): nobody to answer
	case errors.Is(err, store.ErrBenchRunNotFound):
		writeError(w, http.StatusNotFound, reasonNotFound,
			"this agent runs no such proof run (finished, failed as lost, or not its own): stop it and remove its files")
	case store.IsUnavailable(err):
		writeDatabaseUnavailable(w)
	default:
		s.log.Error("proof-run request failed", "org_id", agent.OrgID, "server_id", agent.ServerID, "path", r.URL.Path, "error", err)
		writeInternal(w)
	}
}
