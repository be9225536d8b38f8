package opamp

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/open-telemetry/opamp-go/protobufs"
)

// One credential cannot hold more than MaxConnectionsPerAgent WebSockets: the next upgrade is
// refused with 429 and Retry-After.
func TestConnectionsPerCredentialAreBounded(t *testing.T) {
	h := newHarness(t)
	url := "ws" + strings.TrimPrefix(h.url, "http") + Path
	header := http.Header{"Authorization": {"Bearer " + h.secret}}
	for i := 0; i < DefaultMaxConnectionsPerAgent; i++ {
		conn, _, err := websocket.DefaultDialer.Dial(url, header)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		t.Cleanup(func() { conn.Close() })
	}
	for deadline := time.Now().Add(60 * time.Second); h.server.ConnectedAgents() != DefaultMaxConnectionsPerAgent; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections registered, want %d", h.server.ConnectedAgents(), DefaultMaxConnectionsPerAgent)
		}
	}
	_, resp, err := websocket.DefaultDialer.Dial(url, header)
	if err == nil {
		t.Fatal("a connection beyond the per-credential limit was accepted")
	}
	if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("refusal: %+v, want 429 with Retry-After", resp)
	}
}

// What an agent reports is bounded before it is stored.
func TestReportedCapabilitiesAndEffectiveConfigAreBounded(t *testing.T) {
	values := make([]*protobufs.AnyValue, 10_000)
	for i := range values {
		values[i] = &protobufs.AnyValue{Value: &protobufs.AnyValue_StringValue{StringValue: strings.Repeat("x", 1000)}}
	}
	msg := &protobufs.AgentToServer{
		AgentDescription: &protobufs.AgentDescription{NonIdentifyingAttributes: []*protobufs.KeyValue{
			{Key: CapabilitiesAttribute, Value: &protobufs.AnyValue{Value: &protobufs.AnyValue_ArrayValue{ArrayValue: &protobufs.ArrayValue{Values: values}}}},
		}},
		EffectiveConfig: &protobufs.EffectiveConfig{ConfigMap: &protobufs.AgentConfigMap{ConfigMap: map[string]*protobufs.AgentConfigFile{
			PolicyConfigName: {Body: []byte(`"` + strings.Repeat("y", MaxEffectiveConfigBytes) + `"`)},
		}}},
	}
	report := agentReport(msg, sentPolicy{})
	available := report.Capabilities["available"].([]string)
	if len(available) != maxCapabilities || report.Capabilities["truncated"] != 10_000 {
		t.Fatalf("%d capabilities stored (truncated %v), want %d", len(available), report.Capabilities["truncated"], maxCapabilities)
	}
	for _, c := range available {
		if len([]rune(c)) > maxHostFieldRunes {
			t.Fatalf("a capability of %d characters was stored", len(c))
		}
	}
	if _, stored := report.EffectiveConfig["document"]; stored {
		t.Fatal("an oversized effective config was stored")
	}
	if refused, _ := report.EffectiveConfig["refused"].(string); !strings.Contains(refused, "at most") {
		t.Fatalf("the report does not say the document was refused: %v", report.EffectiveConfig)
	}
}
