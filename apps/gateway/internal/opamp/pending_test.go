package opamp

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// An agent that answers a push before PendingMarkDelay costs one write: its APPLIED or FAILED
// carries the hash sent, so desired_version_hash follows without a pending mark, and a refusal
// is recorded against the policy it refused (what the console's "failed" compares).
func TestAnsweredPushNeedsNoPendingMark(t *testing.T) {
	h, counting := newCountingHarness(t, func(s *Settings) { s.PendingMarkDelay = time.Hour })
	agent := h.startAgent(agentOptions{transport: "websocket", secret: h.secret, decide: func(body []byte) error {
		var policy struct {
			Telemetry struct{ IntervalSeconds int } `json:"telemetry"`
		}
		if err := json.Unmarshal(body, &policy); err != nil || policy.Telemetry.IntervalSeconds == 7 {
			return errRefused
		}
		return nil
	}})
	document, applied := h.setPolicy(30)
	agent.expectConfig(t, document, applied)
	h.policyStatus(func(status, appliedHash, _, _ string) bool { return status == "applied" && appliedHash == applied })
	if desired := h.desiredHash(); desired != applied {
		t.Fatalf("desired_version_hash %q after the APPLIED, want the hash sent %s", desired, applied)
	}

	document, refused := h.setPolicy(7)
	agent.expectConfig(t, document, refused)
	h.policyStatus(func(status, appliedHash, reported, message string) bool {
		return status == "failed" && appliedHash == applied && reported == refused && message == errRefused.Error()
	})
	if desired := h.desiredHash(); desired != refused {
		t.Fatalf("desired_version_hash %q after the FAILED, want the refused hash %s", desired, refused)
	}
	if n := counting.pendingMarks.Load(); n != 0 {
		t.Fatalf("%d pending marks written for pushes the agent answered", n)
	}
}

// A push the agent does not answer within PendingMarkDelay marks its server pending on it.
func TestUnansweredPushIsMarkedPending(t *testing.T) {
	h, counting := newCountingHarness(t, func(s *Settings) { s.PendingMarkDelay = 50 * time.Millisecond })
	document, hash := h.setPolicy(30)
	agent := h.startAgent(agentOptions{transport: "websocket", secret: h.secret, silent: true})
	agent.expectConfig(t, document, hash)
	h.policyStatus(func(status, appliedHash, _, _ string) bool { return status == "pending" && appliedHash == "" })
	if desired := h.desiredHash(); desired != hash {
		t.Fatalf("desired_version_hash %q, want the hash sent %s", desired, hash)
	}
	if counting.pendingMarks.Load() == 0 {
		t.Fatal("the pending row was not written by a pending mark")
	}
}

func (h *harness) desiredHash() string {
	h.t.Helper()
	var desired *string
	must(h.t, h.db.QueryRow(context.Background(), `SELECT desired_version_hash FROM server_policy_status WHERE server_id = $1`,
		h.serverID).Scan(&desired))
	return deref(desired)
}
