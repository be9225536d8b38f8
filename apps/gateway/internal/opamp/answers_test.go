package opamp

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/open-telemetry/opamp-go/protobufs"
	"google.golang.org/protobuf/proto"
)

// rawAgent speaks OpAMP's WebSocket framing by hand (a zero varint header, then the protobuf),
// so the test sees every frame the gateway sends, answers included.
type rawAgent struct {
	t    *testing.T
	conn *websocket.Conn
	uid  []byte
	seq  uint64
}

func (h *harness) dialRaw() *rawAgent {
	h.t.Helper()
	url := "ws" + strings.TrimPrefix(h.url, "http") + Path
	conn, resp, err := websocket.DefaultDialer.Dial(url, http.Header{"Authorization": {"Bearer " + h.secret}})
	if err != nil {
		h.t.Fatalf("dial: %v (response %v)", err, resp)
	}
	h.t.Cleanup(func() { _ = conn.Close() })
	return &rawAgent{t: h.t, conn: conn, uid: []byte("0123456789abcdef")}
}

func (a *rawAgent) send(msg *protobufs.AgentToServer) {
	a.t.Helper()
	a.seq++
	msg.InstanceUid, msg.SequenceNum = a.uid, a.seq
	body, err := proto.Marshal(msg)
	if err != nil {
		a.t.Fatal(err)
	}
	if err := a.conn.WriteMessage(websocket.BinaryMessage, append([]byte{0}, body...)); err != nil {
		a.t.Fatal(err)
	}
}

func (a *rawAgent) next() *protobufs.ServerToAgent {
	a.t.Helper()
	_ = a.conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	_, frame, err := a.conn.ReadMessage()
	if err != nil {
		a.t.Fatalf("read: %v", err)
	}
	if len(frame) == 0 || frame[0] != 0 {
		a.t.Fatalf("frame without OpAMP's zero header: % x", frame)
	}
	var msg protobufs.ServerToAgent
	if err := proto.Unmarshal(frame[1:], &msg); err != nil {
		a.t.Fatal(err)
	}
	return &msg
}

// seenAt is the agent's opamp_seen_at as written by the batch writer (zero before the first write).
func (h *harness) seenAt() time.Time {
	h.t.Helper()
	var at *time.Time
	if err := h.db.QueryRow(context.Background(), `SELECT opamp_seen_at FROM agents WHERE server_id = $1`, h.serverID).Scan(&at); err != nil {
		h.t.Fatal(err)
	}
	if at == nil {
		return time.Time{}
	}
	return *at
}

func (h *harness) waitSeenAfter(t0 time.Time) time.Time {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if at := h.seenAt(); at.After(t0) {
			return at
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatal("the agent's message was never recorded")
	return time.Time{}
}

// A WebSocket agent's first message is answered (opamp-go's CustomCapabilities ride on it); its
// heartbeats and confirmations are not, since the answer would be empty: the next frame after
// them is the policy push itself.
func TestWebSocketAnswersOnlyWhatNeedsAnAnswer(t *testing.T) {
	h := newHarness(t)
	a := h.dialRaw()
	caps := uint64(protobufs.AgentCapabilities_AgentCapabilities_ReportsStatus |
		protobufs.AgentCapabilities_AgentCapabilities_AcceptsRemoteConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsRemoteConfig |
		protobufs.AgentCapabilities_AgentCapabilities_ReportsHeartbeat)
	a.send(&protobufs.AgentToServer{Capabilities: caps, AgentDescription: &protobufs.AgentDescription{
		NonIdentifyingAttributes: []*protobufs.KeyValue{stringAttr("host.name", "db-raw"), stringAttr("os.type", "linux")}}})
	if first := a.next(); first.GetRemoteConfig() != nil || string(first.GetInstanceUid()) != string(a.uid) {
		t.Fatalf("the answer to the first message: %v", first)
	}
	seen := h.waitSeenAfter(time.Time{})

	a.send(&protobufs.AgentToServer{Capabilities: caps}) // a heartbeat
	seen = h.waitSeenAfter(seen)                         // handled (and any answer written) before this
	_, hash := h.setPolicy(45)
	push := a.next()
	if got := hex.EncodeToString(push.GetRemoteConfig().GetConfigHash()); got != hash {
		t.Fatalf("the frame after a heartbeat is %v, want the push of %s (an empty answer came first?)", push, hash)
	}

	a.send(&protobufs.AgentToServer{Capabilities: caps, RemoteConfigStatus: &protobufs.RemoteConfigStatus{
		LastRemoteConfigHash: push.GetRemoteConfig().GetConfigHash(), Status: protobufs.RemoteConfigStatuses_RemoteConfigStatuses_APPLIED}})
	h.policyStatus(func(status, applied, _, _ string) bool { return status == "applied" && applied == hash })
	h.waitSeenAfter(seen)
	_, second := h.setPolicy(50)
	if got := hex.EncodeToString(a.next().GetRemoteConfig().GetConfigHash()); got != second {
		t.Fatalf("the frame after an APPLIED is not the next push (%s) but %s", second, got)
	}
}
