package httpapi

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

func exportAnswer(t *testing.T, resp *http.Response) (hwm, message string) {
	t.Helper()
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	answer := pmetricotlp.NewExportResponse()
	if err := answer.UnmarshalProto(body); err != nil {
		t.Fatal(err)
	}
	return resp.Header.Get(BatchHWMHeader), answer.PartialSuccess().ErrorMessage()
}

// A replay (the same batch again) is acknowledged quietly; a different batch reusing a number
// (an agent whose state was wiped, restored or cloned) is told the mark, counted and not written.
func TestSequenceRegressionIsToldTheMarkAndCounted(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	first := otlpfixture.Proto(otlpfixture.Build(sample(1), sample(2), sample(3)))
	if hwm, message := exportAnswer(t, g.export(t, agent.Credential, first)); hwm != "3" || message != "" {
		t.Fatalf("first export: mark %q message %q, want 3 and none", hwm, message)
	}
	rows := g.count(t, `SELECT count(*) FROM disk_io`)

	replay := otlpfixture.Proto(otlpfixture.Build(sample(3)))
	if hwm, message := exportAnswer(t, g.export(t, agent.Credential, replay)); hwm != "3" || message != "" {
		t.Fatalf("replay: mark %q message %q, want 3 and none", hwm, message)
	}
	if n := scrapeCounter(t, g, "spindle_gateway_batch_sequence_regressions_total"); n != 0 {
		t.Fatalf("a replay counted as %d regression(s)", n)
	}
	if n := scrapeCounter(t, g, "spindle_gateway_batch_sequence_replays_total"); n != 1 {
		t.Fatalf("%d replays counted, want 1", n)
	}

	// A fresh agent state starts again at 1, with new data.
	reset := sample(1)
	reset.Start, reset.End = sample(4).Start, sample(4).End
	hwm, message := exportAnswer(t, g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(reset))))
	if hwm != "3" || !strings.Contains(message, "continue numbering from 4") {
		t.Fatalf("regression: mark %q message %q, want 3 and a message saying where to continue", hwm, message)
	}
	if n := scrapeCounter(t, g, "spindle_gateway_batch_sequence_regressions_total"); n != 1 {
		t.Fatalf("GET /metrics shows %d regressions, want 1", n)
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != rows {
		t.Fatalf("rows went from %d to %d: a batch at or below the mark was written", rows, n)
	}
}

// scrapeCounter reads one counter from the gateway's GET /metrics, as an operator's scraper would.
func scrapeCounter(t *testing.T, g *gateway, name string) int64 {
	t.Helper()
	resp, err := http.Get(g.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET /metrics: status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if value, ok := strings.CutPrefix(lines.Text(), name+" "); ok {
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				t.Fatalf("GET /metrics: %s has value %q", name, value)
			}
			return n
		}
	}
	t.Fatalf("GET /metrics has no %s", name)
	return 0
}
