package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

func TestRejectedBatchWritesNothing(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	md := otlpfixture.Build(sample(1), sample(2))
	otlpfixture.Metric(md, 1, "system.disk.io").Sum().DataPoints().At(3).SetIntValue(-4096)
	message := expectError(t, g.export(t, agent.Credential, otlpfixture.Proto(md)), http.StatusBadRequest, reasonMalformed)
	if !strings.Contains(message, "negative") || !strings.Contains(message, "nothing was written") {
		t.Fatalf("message %q does not say what was wrong", message)
	}
	if n := g.count(t, `SELECT (SELECT count(*) FROM disk_io) + (SELECT count(*) FROM memory)`); n != 0 {
		t.Fatalf("a rejected request wrote %d rows", n)
	}
	if n := g.count(t, `SELECT batch_hwm FROM agents WHERE id = $1`, agent.AgentID); n != 0 {
		t.Fatalf("a rejected request moved batch_hwm to %d", n)
	}
	// Nothing was burned: the valid batch alone is still accepted.
	if resp := g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	g.expectSampleRows(t, agent)
}

func TestMalformedExportsAreRejected(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	cumulative := otlpfixture.Build(sample(1))
	otlpfixture.Metric(cumulative, 0, "system.disk.operations").Sum().SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	noSeq := sample(1)
	noSeq.NoSeq = true
	tests := []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"protobuf garbage", "application/x-protobuf", []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}, "could not decode"},
		{"JSON garbage", "application/json", []byte(`{"resourceMetrics": [{"resource": `), "could not decode"},
		{"cumulative temporality", "application/x-protobuf", otlpfixture.Proto(cumulative), "cumulative temporality"},
		{"missing batch seq", "application/x-protobuf", otlpfixture.Proto(otlpfixture.Build(noSeq)), "spindle.batch.seq is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := g.post(t, "/v1/metrics", map[string]string{"Content-Type": tt.contentType, "Authorization": "Bearer " + agent.Credential}, tt.body)
			if message := expectError(t, resp, http.StatusBadRequest, reasonMalformed); !strings.Contains(message, tt.want) {
				t.Fatalf("message %q does not contain %q", message, tt.want)
			}
		})
	}
	t.Run("invalid gzip", func(t *testing.T) {
		resp := g.post(t, "/v1/metrics", map[string]string{"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip",
			"Authorization": "Bearer " + agent.Credential}, []byte("not gzip at all"))
		expectError(t, resp, http.StatusBadRequest, reasonMalformed)
	})
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 0 {
		t.Fatalf("malformed exports wrote %d rows", n)
	}
}

func TestExportNeedsAValidCredential(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	body := otlpfixture.Proto(otlpfixture.Build(sample(1)))
	for name, header := range map[string]string{
		"no header":          "",
		"not bearer":         "Basic " + agent.Credential,
		"unknown credential": "Bearer spa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"enrolment token":    "Bearer spe_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	} {
		t.Run(name, func(t *testing.T) {
			resp := g.post(t, "/v1/metrics", map[string]string{"Content-Type": "application/x-protobuf", "Authorization": header}, body)
			expectError(t, resp, http.StatusUnauthorized, reasonUnauthenticated)
		})
	}
	t.Run("revoked credential", func(t *testing.T) {
		if _, err := g.db.Exec(context.Background(), `UPDATE agents SET revoked_at = now() WHERE id = $1`, agent.AgentID); err != nil {
			t.Fatal(err)
		}
		message := expectError(t, g.export(t, agent.Credential, body), http.StatusUnauthorized, reasonUnauthenticated)
		if !strings.Contains(message, "revoked") {
			t.Fatalf("message %q does not say the credential was revoked", message)
		}
	})
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 0 {
		t.Fatalf("unauthenticated exports wrote %d rows", n)
	}
}

func TestExportBodyLimits(t *testing.T) {
	const limit = 64 << 10
	g := newGateway(t, func(o *Options) { o.MaxBodyBytes = limit })
	agent := g.enroll(t, "org-a", "machine-a")
	headers := map[string]string{"Content-Type": "application/x-protobuf", "Authorization": "Bearer " + agent.Credential}

	expectError(t, g.post(t, "/v1/metrics", headers, make([]byte, limit+1)), http.StatusRequestEntityTooLarge, reasonTooLarge)

	// 16 MiB of zeros gzip to about 16 KiB: small on the wire, a bomb once unpacked.
	bomb := gzipped(t, make([]byte, 16<<20))
	if len(bomb) > limit {
		t.Fatalf("the bomb is %d bytes on the wire; it must pass the wire limit to test the gunzipped one", len(bomb))
	}
	headers["Content-Encoding"] = "gzip"
	message := expectError(t, g.post(t, "/v1/metrics", headers, bomb), http.StatusRequestEntityTooLarge, reasonTooLarge)
	if !strings.Contains(message, "gunzipped") {
		t.Fatalf("message %q does not say the gunzipped size was the problem", message)
	}

	// A body streamed without Content-Length is cut at the limit too.
	req, _ := http.NewRequest(http.MethodPost, g.url+"/v1/metrics", io.MultiReader(bytes.NewReader(make([]byte, limit)), strings.NewReader("x")))
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+agent.Credential)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	expectError(t, resp, http.StatusRequestEntityTooLarge, reasonTooLarge)
}

func TestExportMediaTypes(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	body := otlpfixture.Proto(otlpfixture.Build(sample(1)))
	expectError(t, g.post(t, "/v1/metrics", map[string]string{"Content-Type": "text/plain", "Authorization": "Bearer " + agent.Credential}, body),
		http.StatusUnsupportedMediaType, reasonUnsupportedMediaType)
	expectError(t, g.post(t, "/v1/metrics", map[string]string{"Content-Type": "application/x-protobuf", "Content-Encoding": "br",
		"Authorization": "Bearer " + agent.Credential}, body), http.StatusUnsupportedMediaType, reasonUnsupportedMediaType)
}

func TestSaturatedGatewayAnswers429(t *testing.T) {
	g := newGateway(t, func(o *Options) { o.MaxConcurrentWrites = 1; o.MaxQueuedWrites = 0 })
	agent := g.enroll(t, "org-a", "machine-a")
	body := otlpfixture.Proto(otlpfixture.Build(sample(1)))

	// Another request holds the only write slot.
	release, ok := g.server.writes.acquire(context.Background())
	if !ok {
		t.Fatal("could not take the write slot")
	}
	resp := g.export(t, agent.Credential, body)
	expectError(t, resp, http.StatusTooManyRequests, reasonOverloaded)
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	release()
	// With the slot free again the gateway accepts the export.
	if resp := g.export(t, agent.Credential, body); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the slot was freed: status %d", resp.StatusCode)
	}
}
