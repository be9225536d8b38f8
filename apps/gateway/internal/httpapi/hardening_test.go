package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/otlpfixture"
)

// A client trickling its body must not hold a write slot: the body is read under its own
// deadline before admission, so other agents' exports go through meanwhile.
func TestSlowBodyHoldsNoWriteSlot(t *testing.T) {
	g := newGateway(t, func(o *Options) {
		o.MaxConcurrentWrites, o.MaxQueuedWrites = 1, 0
		o.BodyReadTimeout = 300 * time.Millisecond
	})
	slowAgent := g.enroll(t, "org-a", "machine-slow")
	agent := g.enroll(t, "org-a", "machine-a")
	body := otlpfixture.Proto(otlpfixture.Build(sample(1)))

	pipeReader, pipeWriter := io.Pipe()
	t.Cleanup(func() { pipeWriter.CloseWithError(io.ErrUnexpectedEOF) })
	req, _ := http.NewRequest(http.MethodPost, g.url+"/v1/metrics", pipeReader)
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+slowAgent.Credential)
	slowDone := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
		}
		slowDone <- resp
	}()
	if _, err := pipeWriter.Write(body[:10]); err != nil {
		t.Fatal(err)
	}

	if resp := g.export(t, agent.Credential, body); resp.StatusCode != http.StatusOK {
		t.Fatalf("an export while another body trickles in: status %d %s", resp.StatusCode, readAll(t, resp))
	}
	slow := <-slowDone
	if slow == nil {
		t.Fatal("the slow export got no response")
	}
	defer slow.Body.Close()
	expectError(t, slow, http.StatusRequestTimeout, reasonMalformed)
	if n := g.count(t, `SELECT count(*) FROM disk_io d JOIN agents a ON a.server_id = d.server_id WHERE a.id = $1`, slowAgent.AgentID); n != 0 {
		t.Fatalf("the timed-out export wrote %d rows", n)
	}
}

// Enrolment has its own pool: exports saturating the write slots cannot block an install.
func TestEnrolmentHasItsOwnAdmissionPool(t *testing.T) {
	g := newGateway(t, func(o *Options) { o.MaxConcurrentWrites, o.MaxQueuedWrites = 1, 0 })
	release, ok := g.server.writes.acquire(context.Background())
	if !ok {
		t.Fatal("could not take the write slot")
	}
	defer release()
	g.enroll(t, "org-a", "machine-a") // fails the test unless 200
}

// Issue 25, M1b: an address pays for what fails or carries no valid credential; an agent
// checked within the TTL is limited by its credential only, so many agents behind one address
// are not throttled as one client.
func TestRateLimitPerAddressCountsOnlyFailuresAndAnswers429WithRetryAfter(t *testing.T) {
	g := newGateway(t, func(o *Options) { o.RatePerAddress = RateLimit{PerSecond: 0.01, Burst: 2} })
	agent := g.enroll(t, "org-a", "machine-a") // succeeds: costs the address nothing
	for seq := int64(1); seq <= 3; seq++ {
		if resp := g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(seq)))); resp.StatusCode != http.StatusOK {
			t.Fatalf("export %d from the agent: status %d", seq, resp.StatusCode)
		}
	}
	guess := "spa_" + strings.Repeat("A", 43)
	for i := 0; i < 2; i++ {
		expectError(t, g.export(t, guess, otlpfixture.Proto(otlpfixture.Build(sample(9)))), http.StatusUnauthorized, reasonUnauthenticated)
	}
	resp := g.export(t, guess, otlpfixture.Proto(otlpfixture.Build(sample(9))))
	expectError(t, resp, http.StatusTooManyRequests, reasonRateLimited)
	seconds, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || seconds < 1 || seconds > 100 {
		t.Fatalf("Retry-After %q, want the seconds until a token (1..100)", resp.Header.Get("Retry-After"))
	}
	expectError(t, g.get(t, "/install.sh"), http.StatusTooManyRequests, reasonRateLimited) // public: every request counts
	// The agent, checked within the TTL, goes on from the spent address.
	if resp := g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(4)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("export from the agent after its address spent its budget: status %d", resp.StatusCode)
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE time > $1`, sample(8).Start); n != 0 {
		t.Fatalf("the refused export wrote %d rows", n)
	}
}

func TestRateLimitPerCredential(t *testing.T) {
	g := newGateway(t, func(o *Options) { o.RatePerCredential = RateLimit{PerSecond: 0.01, Burst: 1} })
	a := g.enroll(t, "org-a", "machine-a")
	b := g.enroll(t, "org-a", "machine-b")
	if resp := g.export(t, a.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("first export: %d", resp.StatusCode)
	}
	expectError(t, g.export(t, a.Credential, otlpfixture.Proto(otlpfixture.Build(sample(2)))), http.StatusTooManyRequests, reasonRateLimited)
	// Another credential from the same address has its own budget.
	if resp := g.export(t, b.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("other credential: %d", resp.StatusCode)
	}
}

func TestClientAddrTrustsForwardedForOnlyFromConfiguredProxies(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	cases := []struct {
		remote, xff string
		trusted     []netip.Prefix
		want        string
	}{
		{"203.0.113.9:5000", "198.51.100.1", nil, "203.0.113.9"},                      // no proxy configured: header ignored
		{"203.0.113.9:5000", "198.51.100.1", proxies, "203.0.113.9"},                  // peer is not a proxy: ignored
		{"10.1.2.3:5000", "198.51.100.1", proxies, "198.51.100.1"},                    // proxy says who the client is
		{"10.1.2.3:5000", "6.6.6.6, 198.51.100.1, 10.9.9.9", proxies, "198.51.100.1"}, // rightmost untrusted hop
		{"10.1.2.3:5000", "garbage", proxies, "10.1.2.3"},
		{"[::ffff:203.0.113.9]:1", "", nil, "203.0.113.9"},
	}
	for _, c := range cases {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := clientAddr(r, c.trusted); got != c.want {
			t.Errorf("remote %s, X-Forwarded-For %q: got %s, want %s", c.remote, c.xff, got, c.want)
		}
	}
}

func TestRateLimiterForgetsIdleKeysAndStaysBounded(t *testing.T) {
	now := time.Unix(0, 0)
	l := newRateLimiter(RateLimit{PerSecond: 1, Burst: 1}, func() time.Time { return now })
	l.maxKeys = 2
	for _, key := range []string{"a", "b"} {
		if ok, _ := l.allow(key); !ok {
			t.Fatalf("%s refused on its first request", key)
		}
	}
	if ok, _ := l.allow("c"); ok {
		t.Fatal("a third key was admitted while both tracked keys were busy")
	}
	now = now.Add(2 * time.Second) // a and b refill and can be forgotten
	if ok, _ := l.allow("c"); !ok {
		t.Fatal("c refused after the idle keys were forgotten")
	}
	if len(l.buckets) > 2 {
		t.Fatalf("%d buckets, bound is 2", len(l.buckets))
	}
}

// Points outside the window are refused with a clear reason, and nothing of the request is written.
func TestTimestampsOutsideTheWindowAreRefused(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	for name, offset := range map[string]time.Duration{"eight days old": -8 * 24 * time.Hour, "an hour ahead": 2 * time.Hour} {
		t.Run(name, func(t *testing.T) {
			good := sample(1)
			bad := sample(2)
			bad.Start, bad.End = time.Now().Add(offset), time.Now().Add(offset+10*time.Second)
			resp := g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(good, bad)))
			message := expectError(t, resp, http.StatusBadRequest, reasonOutOfBounds)
			if want := "outside the accepted window"; !strings.Contains(message, want) {
				t.Fatalf("message %q does not say %q", message, want)
			}
			if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 0 {
				t.Fatalf("%d rows written from a refused request", n)
			}
			if n := g.count(t, `SELECT batch_hwm::int FROM agents WHERE id = $1`, agent.AgentID); n != 0 {
				t.Fatalf("the high-water mark moved to %d", n)
			}
		})
	}
}

func TestDistinctDevicesPerRequestAreBounded(t *testing.T) {
	g := newGateway(t, func(o *Options) { o.Bounds = boundsWith(func(b *ingest.Bounds) { b.MaxDevices = 1 }) })
	agent := g.enroll(t, "org-a", "machine-a")
	expectError(t, g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))), http.StatusBadRequest, reasonOutOfBounds)
}

func TestDistinctTimestampsPerRequestAreBounded(t *testing.T) {
	g := newGateway(t, func(o *Options) { o.Bounds = boundsWith(func(b *ingest.Bounds) { b.MaxTimestamps = 1 }) })
	agent := g.enroll(t, "org-a", "machine-a")
	expectError(t, g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1), sample(2)))), http.StatusBadRequest, reasonOutOfBounds)
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 0 {
		t.Fatalf("%d rows written from a refused request", n)
	}
}

func boundsWith(edit func(*ingest.Bounds)) ingest.Bounds {
	b := ingest.DefaultBounds()
	edit(&b)
	return b
}
