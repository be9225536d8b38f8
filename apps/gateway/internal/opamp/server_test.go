package opamp

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/open-telemetry/opamp-go/protobufs"
)

// The whole delivery loop over each transport: policy on connect, the agent's report recorded,
// a change pushed (WebSocket) or picked up by the next poll (HTTP), a refusal recorded with its
// message, and a restarted agent that already has the policy not sent it again.
func TestDeliversPolicyAndRecordsStatus(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			h := newHarness(t)
			document, hash := h.setPolicy(30)
			agent := h.startAgent(agentOptions{transport: transport, secret: h.secret, decide: func(body []byte) error {
				var policy struct {
					Telemetry struct{ IntervalSeconds int } `json:"telemetry"`
				}
				if err := json.Unmarshal(body, &policy); err != nil || policy.Telemetry.IntervalSeconds == 7 {
					return errors.New("telemetry.intervalSeconds: refused by this test agent")
				}
				return nil
			}})
			agent.expectConfig(t, document, hash)
			h.expectSent(hash)
			h.policyStatus(func(status, applied, reported, _ string) bool {
				return status == "applied" && applied == hash && reported == hash
			})

			// The report is written apart from the status (and may land just after it); a
			// WebSocket agent echoing the policy sent byte for byte has it recorded by its hash.
			var hostname, agentVersion string
			var opampCaps, available []string
			var healthy *bool
			var effectiveInterval, effectiveHash string
			for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				err := h.db.QueryRow(context.Background(), `
					SELECT s.hostname, s.agent_version, ARRAY(SELECT jsonb_array_elements_text(a.capabilities->'opamp')),
					       ARRAY(SELECT jsonb_array_elements_text(a.capabilities->'available')), (a.health->>'healthy')::bool,
					       COALESCE(a.effective_config->'document'->'telemetry'->>'intervalSeconds', ''),
					       COALESCE(a.effective_config->>'hash', '')
					FROM servers s JOIN agents a ON a.server_id = s.id WHERE s.id = $1`, h.serverID).
					Scan(&hostname, &agentVersion, &opampCaps, &available, &healthy, &effectiveInterval, &effectiveHash)
				must(t, err)
				if healthy != nil && (effectiveInterval != "" || effectiveHash != "") || time.Now().After(deadline) {
					break
				}
			}
			if hostname != "db-opamp" || agentVersion != "9.9.9" || healthy == nil || !*healthy || len(available) != 1 || available[0] != "ebpf.block_latency" {
				t.Fatalf("agent report not recorded: hostname=%q version=%q healthy=%v available=%v", hostname, agentVersion, healthy, available)
			}
			if strings.Join(opampCaps, ",") != "ReportsStatus,AcceptsRemoteConfig,ReportsEffectiveConfig,ReportsHealth,ReportsRemoteConfig" {
				t.Fatalf("OpAMP capabilities recorded as %v", opampCaps)
			}
			switch transport {
			case "websocket":
				if effectiveHash != hash || effectiveInterval != "" {
					t.Fatalf("effective config recorded as hash %q, document interval %q; want the hash sent %s and no copy of the document",
						effectiveHash, effectiveInterval, hash)
				}
			default: // a poll's answer is not remembered across polls: the document is stored
				if effectiveInterval != "30" {
					t.Fatalf("effective config recorded as interval %q, want 30", effectiveInterval)
				}
			}

			document, hash = h.setPolicy(15)
			agent.expectConfig(t, document, hash)
			h.expectSent(hash)
			h.policyStatus(func(status, applied, _, _ string) bool { return status == "applied" && applied == hash })

			previous := hash
			document, hash = h.setPolicy(7)
			agent.expectConfig(t, document, hash)
			h.policyStatus(func(status, applied, reported, message string) bool {
				return status == "failed" && applied == previous && reported == hash && strings.Contains(message, "refused by this test agent")
			})
			h.expectSent(hash)
			h.expectNothingSent(300 * time.Millisecond) // a refused policy is not sent over and over
		})
	}
}

func TestRestartedAgentWithCurrentPolicyIsNotSentItAgain(t *testing.T) {
	for _, transport := range transports {
		t.Run(transport, func(t *testing.T) {
			h := newHarness(t)
			_, hash := h.setPolicy(20)
			first := h.startAgent(agentOptions{transport: transport, secret: h.secret})
			first.expectConfig(t, `{"schemaVersion":1,"telemetry":{"intervalSeconds":20}}`, hash)
			h.expectSent(hash)
			h.policyStatus(func(status, applied, _, _ string) bool { return status == "applied" && applied == hash })
			first.stop()

			raw := mustHex(t, hash)
			h.startAgent(agentOptions{transport: transport, secret: h.secret, status: &protobufs.RemoteConfigStatus{
				LastRemoteConfigHash: raw, Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED}})
			h.expectNothingSent(500 * time.Millisecond)
		})
	}
}

func TestRefusesConnectionsWithoutAValidCredential(t *testing.T) {
	h := newHarness(t)
	wsURL := "ws" + strings.TrimPrefix(h.url, "http") + Path
	for name, header := range map[string]http.Header{
		"none":    {},
		"unknown": {"Authorization": {"Bearer spa_not-a-real-credential"}},
		"basic":   {"Authorization": {"Basic " + h.secret}},
	} {
		t.Run("websocket/"+name, func(t *testing.T) {
			conn, resp, err := websocket.DefaultDialer.Dial(wsURL, header)
			if err == nil {
				conn.Close()
				t.Fatal("the WebSocket upgrade was accepted without a valid credential")
			}
			if resp == nil || resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "re-enrol") {
				t.Fatalf("got %v, want 401 with a WWW-Authenticate hint", resp)
			}
		})
		t.Run("http/"+name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, h.url+Path, strings.NewReader(""))
			req.Header = header.Clone()
			req.Header.Set("Content-Type", "application/x-protobuf")
			resp, err := http.DefaultClient.Do(req)
			must(t, err)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("got %d, want 401", resp.StatusCode)
			}
		})
	}

	// Revoked in the console: the next message closes a WebSocket that was accepted before.
	agent := h.startAgent(agentOptions{transport: "websocket", secret: h.secret})
	_ = agent
	deadline := time.Now().Add(60 * time.Second)
	for h.server.ConnectedAgents() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := h.db.Exec(context.Background(), `UPDATE agents SET revoked_at = now() WHERE server_id = $1`, h.serverID); err != nil {
		t.Fatal(err)
	}
	// The credential check is cached for testCredentialTTL: messages within it still pass, the
	// first after it closes the connection.
	for i := 0; h.server.ConnectedAgents() != 0 && time.Now().Before(deadline.Add(5*time.Second)); i++ {
		must(t, agent.client.SetHealth(&protobufs.ComponentHealth{Healthy: false, Status: fmt.Sprintf("poke %d", i)}))
		time.Sleep(50 * time.Millisecond)
	}
	if n := h.server.ConnectedAgents(); n != 0 {
		t.Fatalf("%d connection(s) still open after the credential was revoked", n)
	}
}

// Notifications sent while the LISTEN connection is down are lost; after reconnecting the
// gateway checks its connected agents, so the change still arrives.
func TestPushesChangesMissedWhileTheListenerWasDown(t *testing.T) {
	h := newHarness(t)
	document, hash := h.setPolicy(30)
	agent := h.startAgent(agentOptions{transport: "websocket", secret: h.secret})
	agent.expectConfig(t, document, hash)
	h.expectSent(hash)

	_, err := h.db.Exec(context.Background(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`)
	must(t, err)
	document, hash = h.setPolicy(45) // may be announced before or after the listener is back
	h.waitListening()
	agent.expectConfig(t, document, hash)
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	must(t, err)
	return b
}
