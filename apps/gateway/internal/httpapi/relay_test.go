package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

const testRelay = "spr_0123456789abcdef0123456789abcdef0123456789abcdef"

func withRelay(o *Options) { o.RelayCredentials = []string{testRelay} }

// relayed is one agent's batch inside a Collector's merged request.
func relayed(credential string, seq int64) otlpfixture.Sample {
	s := sample(seq)
	s.Attributes = map[string]string{ingest.AgentCredentialAttribute: credential}
	return s
}

func (g *gateway) relay(t *testing.T, relayCredential string, md pmetric.Metrics) *http.Response {
	t.Helper()
	return g.post(t, "/v1/metrics", map[string]string{"Content-Type": "application/x-protobuf", "Authorization": "Bearer " + relayCredential},
		otlpfixture.Proto(md))
}

// partialSuccess decodes a 200 answer: rejected data points and the message.
func partialSuccess(t *testing.T, resp *http.Response) (int64, string) {
	t.Helper()
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("relayed export: %d %s", resp.StatusCode, body)
	}
	answer := pmetricotlp.NewExportResponse()
	if err := answer.UnmarshalProto(body); err != nil {
		t.Fatal(err)
	}
	return answer.PartialSuccess().RejectedDataPoints(), answer.PartialSuccess().ErrorMessage()
}

func pointsOf(samples ...otlpfixture.Sample) int64 {
	return int64(otlpfixture.Build(samples...).DataPointCount())
}

func TestRelayedExportKeepsEachAgentsScopeAndSequence(t *testing.T) {
	g := newGateway(t, withRelay)
	a := g.enroll(t, "org-a", "m-a")
	b := g.enroll(t, "org-b", "m-b")
	revoked := g.enroll(t, "org-a", "m-revoked")
	if _, err := g.db.Exec(context.Background(), `UPDATE agents SET revoked_at = now() WHERE id = $1`, revoked.AgentID); err != nil {
		t.Fatal(err)
	}
	forged := relayed("spa_forgedforgedforgedforgedforged00", 1)
	forged.Attributes["host.name"] = "pretends-to-be-a"
	missing := sample(1)
	request := []otlpfixture.Sample{relayed(a.Credential, 1), relayed(b.Credential, 1), relayed(revoked.Credential, 1), forged, missing,
		relayed(a.Credential, 2)}

	rejected, message := partialSuccess(t, g.relay(t, testRelay, otlpfixture.Build(request...)))
	if want := pointsOf(request[2:5]...); rejected != want {
		t.Fatalf("rejected %d points (%s), want %d: the revoked, forged and credential-less resources", rejected, message, want)
	}
	for _, why := range []string{"resources [2]: the agent credential was revoked", "resources [3]: the agent credential is unknown", "resource 4: no agent credential"} {
		if !strings.Contains(message, why) {
			t.Errorf("partial success %q does not say %q", message, why)
		}
	}
	if strings.Contains(message, "spa_") {
		t.Errorf("the answer repeats a credential: %q", message)
	}
	check := func(when string) {
		t.Helper()
		for sql, want := range map[string]int{
			`SELECT count(*) FROM disk_io WHERE org_id = 'org-a' AND server_id = '` + a.ServerID + `'`: 4, // two batches × two devices
			`SELECT count(*) FROM disk_io WHERE org_id = 'org-b' AND server_id = '` + b.ServerID + `'`: 2,
			`SELECT count(*) FROM disk_io`: 6,
			`SELECT count(*) FROM memory`:  3,
			`SELECT count(*) FROM agents WHERE id = '` + a.AgentID + `' AND batch_hwm = 2`:       1,
			`SELECT count(*) FROM agents WHERE id = '` + b.AgentID + `' AND batch_hwm = 1`:       1,
			`SELECT count(*) FROM agents WHERE id = '` + revoked.AgentID + `' AND batch_hwm = 0`: 1,
			`SELECT count(*) FROM servers WHERE hostname = 'pretends-to-be-a'`:                   0,
		} {
			if got := g.count(t, sql); got != want {
				t.Errorf("%s: %s = %d, want %d", when, sql, got, want)
			}
		}
	}
	check("first delivery")

	// The Collector sends the request again (it never saw the answer): every batch already
	// written is acknowledged and not written twice.
	again, _ := partialSuccess(t, g.relay(t, testRelay, otlpfixture.Build(request...)))
	if again != rejected {
		t.Fatalf("second delivery rejected %d points, want %d", again, rejected)
	}
	check("second delivery")
}

func TestRelayedExportRefusesOneAgentWhollyAndKeepsTheOthers(t *testing.T) {
	g := newGateway(t, withRelay)
	a := g.enroll(t, "org-a", "m-a")
	b := g.enroll(t, "org-a", "m-b")
	md := otlpfixture.Build(relayed(a.Credential, 1), relayed(b.Credential, 1), relayed(a.Credential, 2))
	// Agent a's second batch sends milliseconds as seconds: both of a's batches are refused
	// (all or nothing for its agent), b's lands.
	md.ResourceMetrics().At(2).ScopeMetrics().At(0).Metrics().At(0).SetUnit("ms")
	rejected, message := partialSuccess(t, g.relay(t, testRelay, md))
	if want := pointsOf(relayed(a.Credential, 1), relayed(a.Credential, 2)); rejected != want || !strings.Contains(message, "resources [0 2]: malformed") {
		t.Fatalf("rejected %d (%q), want %d for agent a's two resources", rejected, message, want)
	}
	if got := g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1`, b.ServerID); got != 2 {
		t.Fatalf("agent b's rows = %d, want 2", got)
	}
	if got := g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1`, a.ServerID); got != 0 {
		t.Fatalf("agent a's rows = %d, want 0", got)
	}
}

func TestRelayCredentialIsRequiredAndNeverAnAgents(t *testing.T) {
	g := newGateway(t, withRelay)
	a := g.enroll(t, "org-a", "m-a")
	md := otlpfixture.Build(relayed(a.Credential, 1))
	expectError(t, g.relay(t, "spr_not-the-relay-credential-of-this-gateway", md), http.StatusUnauthorized, reasonUnauthenticated)
	// Without relays configured the same request is refused too.
	plain := newGateway(t)
	expectError(t, plain.relay(t, testRelay, md), http.StatusUnauthorized, reasonUnauthenticated)
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 0 {
		t.Fatalf("a refused relay wrote %d rows", n)
	}
}

func TestRelayedExportDuringAnOutageIsRetriedWhole(t *testing.T) {
	g := newGateway(t)
	a := g.enroll(t, "org-a", "m-a")
	b := g.enroll(t, "org-b", "m-b")
	dbURL, err := url.Parse(g.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newDBProxy(t, dbURL.Host)
	dbURL.Host = proxy.addr
	q := dbURL.Query()
	q.Set("connect_timeout", "2")
	dbURL.RawQuery = q.Encode()
	proxied, err := store.Open(context.Background(), dbURL.String(), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxied.Close)
	proxiedURL, _ := serve(t, proxied, withRelay)
	relay := &gateway{url: proxiedURL}

	if rejected, msg := partialSuccess(t, relay.relay(t, testRelay, otlpfixture.Build(relayed(a.Credential, 1)))); rejected != 0 {
		t.Fatalf("before the outage: rejected %d (%s)", rejected, msg)
	}
	request := otlpfixture.Build(relayed(a.Credential, 1), relayed(b.Credential, 1), relayed(a.Credential, 2))
	proxy.stop()
	resp := relay.relay(t, testRelay, request)
	expectError(t, resp, http.StatusServiceUnavailable, reasonDatabaseUnavailable)
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After: the Collector would not know to retry")
	}
	proxy.start(proxy.addr)
	if rejected, msg := partialSuccess(t, relay.relay(t, testRelay, request)); rejected != 0 {
		t.Fatalf("after the outage: rejected %d (%s)", rejected, msg)
	}
	for server, want := range map[string]int{a.ServerID: 4, b.ServerID: 2} {
		if got := g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1`, server); got != want {
			t.Errorf("server %s: %d disk_io rows, want %d (every batch exactly once)", server, got, want)
		}
	}
}
