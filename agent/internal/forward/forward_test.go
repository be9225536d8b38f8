package forward

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/spool"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

type received struct {
	seq int
	at  time.Time
}

// gateway is a real HTTP server on loopback that answers from a script and checks every
// request the way the real gateway would see it.
type gateway struct {
	t        *testing.T
	spoolDir string
	respond  func(attempt, seq int) (code int, header http.Header)

	mu       sync.Mutex
	received []received
	requests [][]int // the batches of each request
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/metrics" || r.Method != http.MethodPost {
		g.t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer spa_test" {
		g.t.Errorf("Authorization %q", got)
	}
	if r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Content-Encoding") != "gzip" {
		g.t.Errorf("headers %v", r.Header)
	}
	zr, err := gzip.NewReader(r.Body)
	if err != nil {
		g.t.Errorf("body is not gzip: %v", err)
		return
	}
	raw, _ := io.ReadAll(zr) // several gzip members when the request carries several batches
	var seqs []int
	for _, part := range strings.Split(string(raw), "batch-")[1:] {
		seq, err := strconv.Atoi(part)
		if err != nil {
			g.t.Errorf("body %q", raw)
		}
		seqs = append(seqs, seq)
	}
	code, header := http.StatusOK, http.Header(nil)
	for _, seq := range seqs {
		// Delete only after ack: while the gateway holds the request, the batch is still on disk.
		if _, err := os.Stat(filepath.Join(g.spoolDir, fmt.Sprintf("%020d.batch", seq))); err != nil {
			g.t.Errorf("batch %d left the spool before the gateway answered: %v", seq, err)
		}
		g.mu.Lock()
		attempt := len(g.received)
		g.received = append(g.received, received{seq: seq, at: time.Now()})
		g.mu.Unlock()
		if c, h := g.respond(attempt, seq); code < 300 { // the first refusal answers for the request
			code, header = c, h
		}
	}
	g.mu.Lock()
	g.requests = append(g.requests, seqs)
	g.mu.Unlock()

	for k, v := range header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	if code >= 300 {
		fmt.Fprintf(w, `{"error":"scripted %d","reason":"scripted"}`, code)
	}
}

func (g *gateway) snapshot() []received {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]received(nil), g.received...)
}

func (g *gateway) seqs() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []int
	for _, r := range g.received {
		out = append(out, r.seq)
	}
	return out
}

func gz(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	zw.Close()
	return buf.Bytes()
}

type fixture struct {
	spool      *spool.Spool
	dir        string
	gateway    *gateway
	fwd        *Forwarder
	perRequest int // batches per request; the retry rules are tested one batch at a time
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newFixture(t *testing.T, batches int, respond func(attempt, seq int) (int, http.Header)) *fixture {
	t.Helper()
	dir := t.TempDir()
	sp, err := spool.Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	for seq := 1; seq <= batches; seq++ {
		appendBatch(t, sp, seq)
	}
	g := &gateway{t: t, spoolDir: dir, respond: respond}
	return &fixture{spool: sp, dir: dir, gateway: g}
}

func appendBatch(t *testing.T, sp *spool.Spool, seq int) {
	t.Helper()
	if err := sp.Append(spool.Batch{Seq: uint64(seq), ContentEncoding: "gzip", Body: gz(fmt.Sprintf("batch-%d", seq))}); err != nil {
		t.Fatal(err)
	}
}

// start runs the forwarder against url until the test ends.
func (f *fixture) start(t *testing.T, url string) {
	f.fwd = New(Settings{Gateway: url, Credential: "spa_test", Spool: f.spool, Logger: quiet(),
		MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		UnauthenticatedRetry: 150 * time.Millisecond, IdleCheck: 50 * time.Millisecond, MaxBatchesPerRequest: max(1, f.perRequest)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.fwd.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func (f *fixture) serve(t *testing.T) {
	f.start(t, testutil.Server(t, f.gateway).URL+"/") // trailing slash must not double up
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ok(int, int) (int, http.Header) { return http.StatusOK, nil }

func TestDeliversInOrderAndDeletesAfterAck(t *testing.T) {
	f := newFixture(t, 3, ok)
	f.serve(t)
	eventually(t, "spool drained", func() bool { return f.spool.Stats().Batches == 0 })
	appendBatch(t, f.spool, 4) // a new batch wakes the idle forwarder
	eventually(t, "batch 4 delivered", func() bool { return f.spool.Stats().Batches == 0 && len(f.gateway.seqs()) == 4 })
	if got := fmt.Sprint(f.gateway.seqs()); got != "[1 2 3 4]" {
		t.Fatalf("sent %s", got)
	}
	if st := f.fwd.Status(); st.LastDeliveredSeq != 4 || st.LastDelivery.IsZero() || st.FailedAttempts != 0 {
		t.Fatalf("%+v", st)
	}
}

func TestServerErrorsBackOffWithoutReordering(t *testing.T) {
	f := newFixture(t, 2, func(attempt, seq int) (int, http.Header) {
		if attempt < 4 {
			return http.StatusServiceUnavailable, nil
		}
		return http.StatusOK, nil
	})
	f.serve(t)
	eventually(t, "first failures", func() bool { return len(f.gateway.seqs()) >= 2 })
	appendBatch(t, f.spool, 3) // arrives while batch 1 is failing: must wait its turn
	eventually(t, "drained", func() bool { return f.spool.Stats().Batches == 0 })
	if got := fmt.Sprint(f.gateway.seqs()); got != "[1 1 1 1 1 2 3]" {
		t.Fatalf("sent %s; batch 1 must be retried until acknowledged, then 2, then 3", got)
	}
	got := f.gateway.snapshot()
	if gap := got[4].at.Sub(got[3].at); gap < 20*time.Millisecond { // 4th failure backs off >= max/2
		t.Fatalf("no backoff between retries: %v", gap)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	f := newFixture(t, 1, func(attempt, seq int) (int, http.Header) {
		if attempt == 0 {
			return http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}}
		}
		return http.StatusOK, nil
	})
	f.serve(t)
	eventually(t, "delivered", func() bool { return f.spool.Stats().Batches == 0 })
	r := f.gateway.snapshot()
	if gap := r[1].at.Sub(r[0].at); gap < time.Second || gap > 2500*time.Millisecond {
		t.Fatalf("retried after %v; want Retry-After 1 s plus at most 20%% jitter", gap)
	}
}

func TestMalformedAndTooLargeAreRejectedAndDeliveryContinues(t *testing.T) {
	f := newFixture(t, 4, func(attempt, seq int) (int, http.Header) {
		switch seq {
		case 2:
			return http.StatusBadRequest, nil
		case 3:
			return http.StatusRequestEntityTooLarge, nil
		}
		return http.StatusOK, nil
	})
	f.serve(t)
	eventually(t, "drained", func() bool { return f.spool.Stats().Batches == 0 })
	if got := fmt.Sprint(f.gateway.seqs()); got != "[1 2 3 4]" {
		t.Fatalf("sent %s; rejected batches are sent once", got)
	}
	for _, seq := range []int{2, 3} {
		if _, err := os.Stat(filepath.Join(f.dir, "rejected", fmt.Sprintf("%020d.batch", seq))); err != nil {
			t.Errorf("batch %d not in spool/rejected: %v", seq, err)
		}
	}
	st := f.fwd.Status()
	if f.spool.Stats().RejectedBatches != 2 || !strings.Contains(st.LastError, "413") {
		t.Fatalf("spool %+v status %+v", f.spool.Stats(), st)
	}
}

func TestUnauthenticatedKeepsBatchesAndRetriesSlowly(t *testing.T) {
	var mu sync.Mutex
	revoked := true
	f := newFixture(t, 2, func(attempt, seq int) (int, http.Header) {
		mu.Lock()
		defer mu.Unlock()
		if revoked {
			return http.StatusUnauthorized, nil
		}
		return http.StatusOK, nil
	})
	f.serve(t)
	eventually(t, "two refused attempts", func() bool { return len(f.gateway.seqs()) >= 2 })
	st := f.fwd.Status()
	if !st.Unauthenticated || !strings.Contains(st.LastError, "re-enrol") {
		t.Fatalf("status must say to re-enrol: %+v", st)
	}
	if f.spool.Stats().Batches != 2 {
		t.Fatalf("batches lost while unauthenticated: %+v", f.spool.Stats())
	}
	r := f.gateway.snapshot()
	if gap := r[1].at.Sub(r[0].at); gap < 150*time.Millisecond {
		t.Fatalf("retried after %v; want the slow unauthenticated period", gap)
	}
	mu.Lock()
	revoked = false // the operator re-enrolled (here: the gateway accepts again)
	mu.Unlock()
	eventually(t, "drained", func() bool { return f.spool.Stats().Batches == 0 })
	if st := f.fwd.Status(); st.Unauthenticated {
		t.Fatalf("still unauthenticated after a delivery: %+v", st)
	}
	if seqs := f.gateway.seqs(); seqs[len(seqs)-2] != 1 || seqs[len(seqs)-1] != 2 {
		t.Fatalf("order %v", seqs)
	}
}

func TestNetworkErrorsKeepBatchesUntilTheGatewayIsBack(t *testing.T) {
	f := newFixture(t, 2, ok)
	l := testutil.Listen(t)
	addr := l.Addr().String()
	l.Close() // nothing listens: connection refused
	f.start(t, "http://"+addr)
	eventually(t, "a failed attempt", func() bool { return f.fwd.Status().FailedAttempts >= 2 })
	if st := f.fwd.Status(); !strings.Contains(st.LastError, "connection refused") || f.spool.Stats().Batches != 2 {
		t.Fatalf("status %+v spool %+v", st, f.spool.Stats())
	}
	relisten, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s was taken meanwhile: %v", addr, err)
	}
	testutil.ServeOn(t, relisten, f.gateway)
	eventually(t, "drained", func() bool { return f.spool.Stats().Batches == 0 })
	if got := fmt.Sprint(f.gateway.seqs()); got != "[1 2]" {
		t.Fatalf("sent %s", got)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
	if d, ok := retryAfter("7", now); !ok || d != 7*time.Second {
		t.Errorf("seconds: %v %v", d, ok)
	}
	if d, ok := retryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now); !ok || d != 90*time.Second {
		t.Errorf("HTTP date: %v %v", d, ok)
	}
	if _, ok := retryAfter("soon", now); ok {
		t.Error("garbage accepted")
	}
}
