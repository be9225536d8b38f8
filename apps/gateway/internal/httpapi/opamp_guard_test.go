package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/opamp"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

const testOpAMPLimit = 4096

// opampGateway serves the real OpAMP server behind the gateway's guard.
func opampGateway(t *testing.T) (*gateway, string) {
	t.Helper()
	dbURL := testdb.New(t)
	st, err := store.Open(context.Background(), dbURL, 6)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	server, err := opamp.New(opamp.Settings{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_, handler, err := newServer(Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PublicURL: "http://gateway.test:4318",
		SigningKey: testSigningKey, MaxBodyBytes: 1 << 20, MaxConcurrentWrites: 2, OpAMP: server.Handler(), OpAMPLimits: OpAMPLimits{MaxMessageBytes: testOpAMPLimit}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(handler)
	ts.Config.ConnContext = server.ConnContext()
	ts.Start()
	t.Cleanup(ts.Close)
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	g := &gateway{url: ts.URL, db: pool, dbURL: dbURL}
	testdb.Org(t, g.db, "org-a")
	agent := g.enroll(t, "org-a", "machine-opamp")
	return g, agent.Credential
}

func TestOpAMPPlainHTTPBodiesAreBoundedBeforeDecoding(t *testing.T) {
	g, secret := opampGateway(t)
	headers := map[string]string{"Content-Type": "application/x-protobuf", "Authorization": "Bearer " + secret}
	expectError(t, g.post(t, "/v1/opamp", headers, bytes.Repeat([]byte{0}, 2*testOpAMPLimit)), http.StatusRequestEntityTooLarge, reasonTooLarge)

	// A small gzip that inflates past the limit is refused too, by its gunzipped size.
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, _ = zw.Write(make([]byte, 1<<20))
	_ = zw.Close()
	if bomb.Len() >= testOpAMPLimit {
		t.Fatalf("the bomb is %d bytes compressed; it must pass the wire limit to test the gunzipped one", bomb.Len())
	}
	headers["Content-Encoding"] = "gzip"
	message := expectError(t, g.post(t, "/v1/opamp", headers, bomb.Bytes()), http.StatusRequestEntityTooLarge, reasonTooLarge)
	if !strings.Contains(message, "gunzipped") {
		t.Fatalf("message %q does not say the gunzipped body is too large", message)
	}
}

func TestOpAMPWebSocketMessagesAreBounded(t *testing.T) {
	g, secret := opampGateway(t)
	url := "ws" + strings.TrimPrefix(g.url, "http") + "/v1/opamp"
	conn, _, err := websocket.DefaultDialer.Dial(url, http.Header{"Authorization": {"Bearer " + secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.WriteMessage(websocket.BinaryMessage, make([]byte, 2*testOpAMPLimit)); err != nil {
		t.Fatal(err)
	}
	// The gateway closes the connection; the deadline only keeps a broken build from hanging.
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, _, err := conn.ReadMessage(); err == nil {
		t.Fatal("the gateway answered an oversized message instead of closing the connection")
	} else if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
		t.Fatal("the connection stayed open after an oversized message")
	}
}

func TestFrameLimiterCountsFragmentsAndIgnoresControlFrames(t *testing.T) {
	frame := func(fin bool, opcode byte, n int) []byte {
		b := []byte{opcode, 0x80} // masked, as clients send
		if fin {
			b[0] |= 0x80
		}
		switch {
		case n < 126:
			b[1] |= byte(n)
		case n < 1<<16:
			b[1] |= 126
			b = append(b, byte(n>>8), byte(n))
		default:
			b[1] |= 127
			for i := 7; i >= 0; i-- {
				b = append(b, byte(n>>(8*i)))
			}
		}
		b = append(b, 1, 2, 3, 4) // mask
		return append(b, make([]byte, n)...)
	}
	scanAll := func(f *frameLimiter, stream []byte) error {
		for len(stream) > 0 { // a byte at a time: headers split across reads
			if err := f.scan(stream[:1]); err != nil {
				return err
			}
			stream = stream[1:]
		}
		return nil
	}
	ok := bytes.Join([][]byte{frame(false, 2, 60), frame(false, 9, 100), frame(true, 0, 40), frame(true, 2, 100)}, nil)
	if err := scanAll(&frameLimiter{limit: 100}, ok); err != nil {
		t.Fatalf("messages within the limit refused: %v", err)
	}
	tooBig := bytes.Join([][]byte{frame(false, 2, 60), frame(true, 0, 41)}, nil)
	if err := scanAll(&frameLimiter{limit: 100}, tooBig); err == nil {
		t.Fatal("a fragmented message over the limit passed")
	}
	if err := (&frameLimiter{limit: 100}).scan(frame(true, 2, 70_000)[:14]); err == nil {
		t.Fatal("a 64-bit length over the limit passed")
	}
}

// deadlineConn records the write deadlines set on it, and when each was set; a peer that never
// reads blocks its writes until the deadline.
type deadlineConn struct {
	net.Conn
	deadlines []time.Time
	setAt     []time.Time
}

func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	c.deadlines, c.setAt = append(c.deadlines, t), append(c.setAt, time.Now())
	return c.Conn.SetWriteDeadline(t)
}

// writeOrHang writes p; a write still blocked after a generous bound fails the test (a write
// without a deadline never ends).
func writeOrHang(t *testing.T, conn net.Conn, p []byte) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := conn.Write(p); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(60 * time.Second):
		_ = conn.Close()
		t.Fatal("a write to a peer that never reads never ended: it has no deadline")
		return nil
	}
}

// expectOneDeadline checks that one write deadline was set, writeTimeout after the moment it was
// set (between since and the setting itself): the timeout is read from the deadline's value,
// not from how long a busy machine took.
func expectOneDeadline(t *testing.T, c *deadlineConn, since time.Time, writeTimeout time.Duration) {
	t.Helper()
	if len(c.deadlines) != 1 {
		t.Fatalf("%d write deadlines set for one frame (%v); want one", len(c.deadlines), c.deadlines)
	}
	if d := c.deadlines[0]; d.Before(since.Add(writeTimeout)) || d.After(c.setAt[0].Add(writeTimeout)) {
		t.Fatalf("write deadline %s set between %s and %s; want the write timeout (%s) after it was set", d, since, c.setAt[0], writeTimeout)
	}
}

// Every write to an OpAMP WebSocket is bounded by the write timeout, whether or not its writer
// set a deadline, and a frame written right after gorilla/websocket set one does not move the
// connection's timer a second time.
func TestOpAMPWritesAreBoundedWithOneDeadlineEach(t *testing.T) {
	local, peer := net.Pipe() // the peer never reads: the write ends at its deadline
	defer peer.Close()
	inner := &deadlineConn{Conn: local}
	conn := &limitedConn{Conn: inner, writeTimeout: 100 * time.Millisecond}
	started := time.Now()
	if err := writeOrHang(t, conn, []byte("no deadline set")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write to a peer that never reads ended with %v; want its deadline exceeded", err)
	}
	expectOneDeadline(t, inner, started, 100*time.Millisecond)

	// A frame as gorilla/websocket writes it: "no deadline" set, then the write. The peer reads
	// and the timeout is long, so "right after" holds however busy the machine is.
	local, peer = net.Pipe()
	defer peer.Close()
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	inner = &deadlineConn{Conn: local}
	conn = &limitedConn{Conn: inner, writeTimeout: time.Hour}
	started = time.Now()
	_ = conn.SetWriteDeadline(time.Time{})
	if err := writeOrHang(t, conn, []byte("frame")); err != nil {
		t.Fatal(err)
	}
	expectOneDeadline(t, inner, started, time.Hour)
}
