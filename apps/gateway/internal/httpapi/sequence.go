package httpapi

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// BatchHWMHeader carries the agent's batch high-water mark on every successful export answer,
// so an agent whose sequence went backwards (wiped state directory, restored snapshot, cloned
// image) can continue above it instead of having every batch acknowledged and dropped.
// docs/agent-protocol.md, "Sequence numbers".
const BatchHWMHeader = "X-Spindle-Batch-Hwm"

// recentBatches remembers the digests of the last batches each agent wrote through this
// gateway, to tell a plain replay (the same batch resent after a lost acknowledgement) from a
// regression (a different batch reusing a number). Memory is bounded: recentPerAgent batches per
// agent, recentAgents agents; an agent forgotten (or written through another gateway) gives
// "unverified", which is logged as such rather than guessed.
type recentBatches struct {
	mu     sync.Mutex
	agents map[string]map[int64][32]byte

	regressions atomic.Int64 // duplicates whose digest differs from the batch written under that number
	unverified  atomic.Int64 // duplicates this gateway has no digest for
	replays     atomic.Int64 // duplicates with the digest of the batch written under that number
}

const (
	recentPerAgent = 256
	recentAgents   = 20_000
)

func newRecentBatches() *recentBatches {
	return &recentBatches{agents: map[string]map[int64][32]byte{}}
}

func (r *recentBatches) record(agentID string, written []telemetry.Batch) {
	if len(written) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := r.agents[agentID]
	if seen == nil {
		if len(r.agents) >= recentAgents {
			for id := range r.agents { // forget an arbitrary agent: bounded memory beats completeness here
				delete(r.agents, id)
				break
			}
		}
		seen = map[int64][32]byte{}
		r.agents[agentID] = seen
	}
	for _, b := range written {
		seen[b.Seq] = b.Digest
	}
	for len(seen) > recentPerAgent {
		oldest := int64(-1)
		for seq := range seen {
			if oldest < 0 || seq < oldest {
				oldest = seq
			}
		}
		delete(seen, oldest)
	}
}

type duplicateKind int

const (
	replay duplicateKind = iota
	regression
	unverified
)

func (r *recentBatches) classify(agentID string, b telemetry.Batch) duplicateKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.agents[agentID][b.Seq]
	switch {
	case !ok:
		r.unverified.Add(1)
		return unverified
	case d == b.Digest:
		r.replays.Add(1)
		return replay
	default:
		r.regressions.Add(1)
		return regression
	}
}

// noteSequence records what was written, logs and counts duplicates that are not plain
// replays, sets the high-water-mark header, and returns the partial-success message for the
// agent ("" when every duplicate was a replay).
func (s *server) noteSequence(w http.ResponseWriter, agent store.Agent, all []telemetry.Batch, result store.WriteResult) string {
	w.Header().Set(BatchHWMHeader, strconv.FormatInt(result.BatchHWM, 10))
	// The store's rule: in sequence order, a batch at or below the mark (which rises as batches
	// are written) is a duplicate.
	ordered := slices.SortedStableFunc(slices.Values(all), func(a, b telemetry.Batch) int { return cmp.Compare(a.Seq, b.Seq) })
	var mine, duplicates []telemetry.Batch
	mark := result.PreviousHWM
	for _, b := range ordered {
		if b.Seq <= mark {
			duplicates = append(duplicates, b)
			continue
		}
		mark = b.Seq
		mine = append(mine, b)
	}
	message := ""
	for _, dup := range duplicates {
		switch s.recent.classify(agent.ID, dup) {
		case replay:
			continue
		case regression:
			s.log.Warn("batch sequence went backwards: a different batch reused a number at or below the high-water mark; it was not written",
				"org_id", agent.OrgID, "server_id", agent.ServerID, "agent_id", agent.ID, "seq", dup.Seq, "batch_hwm", result.BatchHWM,
				"regressions_total", s.recent.regressions.Load())
		case unverified:
			s.log.Info("batch at or below the high-water mark not written; no digest here to tell a replay from a regression",
				"agent_id", agent.ID, "seq", dup.Seq, "batch_hwm", result.BatchHWM, "unverified_total", s.recent.unverified.Load())
		}
		message = fmt.Sprintf("batch %d is at or below this agent's high-water mark %d and was not written; if the agent's state was reset, continue numbering from %d (the %s header carries the mark)",
			dup.Seq, result.BatchHWM, result.BatchHWM+1, BatchHWMHeader)
	}
	s.recent.record(agent.ID, mine)
	return message
}
