package opamp

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/open-telemetry/opamp-go/protobufs"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// unusedStore satisfies Store for tests that never reach the database.
type unusedStore struct{ Store }

// An effective config that is the policy sent on the connection is queued as its hash, once:
// the same again changes nothing, while a different document in between is stored and makes
// the next echo news again.
func TestEchoedPolicyIsRecordedByHashOnce(t *testing.T) {
	s, err := New(Settings{Store: unusedStore{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(t, err)
	c := newAgentConnection(s, store.Agent{ID: "agent", OrgID: "org", ServerID: "server"}, true)
	c.sentHash, c.sentBody = "abc123", []byte(`{"schemaVersion": 1}`)
	queued := func(body string) map[string]any {
		t.Helper()
		c.queueUpdate(context.Background(), &protobufs.AgentToServer{EffectiveConfig: &protobufs.EffectiveConfig{
			ConfigMap: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{PolicyConfigName: {Body: []byte(body)}}}}})
		s.seen.mu.Lock()
		defer s.seen.mu.Unlock()
		update := s.seen.pending["agent"]
		delete(s.seen.pending, "agent") // as a flush would
		return update.Report.EffectiveConfig
	}
	if got := queued(`{"schemaVersion": 1}`); got["hash"] != "abc123" || got["document"] != nil {
		t.Fatalf("the echoed policy was queued as %v, want its hash and no document", got)
	}
	if got := queued(`{"schemaVersion": 1}`); got != nil {
		t.Fatalf("the same echo again was queued as %v, want nothing", got)
	}
	if got := queued(`{"schemaVersion": 1, "local": true}`); got["document"] == nil || got["hash"] != nil {
		t.Fatalf("a document other than the policy sent was queued as %v, want the document", got)
	}
	if got := queued(`{"schemaVersion": 1}`); got["hash"] != "abc123" {
		t.Fatalf("the policy sent, after another document, was queued as %v, want its hash", got)
	}
}
