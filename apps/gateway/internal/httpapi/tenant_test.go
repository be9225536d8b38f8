package httpapi

import (
	"net/http"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

func TestTenantIsolation(t *testing.T) {
	g := newGateway(t)
	agentA := g.enroll(t, "org-a", "machine-a")
	agentB := g.enroll(t, "org-b", "machine-b")

	// Agent A claims to be org B's server in every attribute it can.
	forged := sample(1)
	forged.Attributes = map[string]string{"org_id": "org-b", "spindle.org.id": "org-b", "server_id": agentB.ServerID,
		"spindle.server.id": agentB.ServerID, "spindle.agent.id": agentB.AgentID, "host.id": "machine-b"}
	md := otlpfixture.Build(forged)
	for _, name := range []string{"system.disk.operations", "system.memory.limit"} {
		dp := otlpfixture.Metric(md, 0, name)
		var points pmetric.NumberDataPointSlice
		if dp.Type() == pmetric.MetricTypeSum {
			points = dp.Sum().DataPoints()
		} else {
			points = dp.Gauge().DataPoints()
		}
		points.At(0).Attributes().PutStr("org_id", "org-b")
		points.At(0).Attributes().PutStr("server_id", agentB.ServerID)
	}
	if resp := g.export(t, agentA.Credential, otlpfixture.Proto(md)); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	g.expectSampleRows(t, agentA)
	if n := g.count(t, `SELECT (SELECT count(*) FROM disk_io WHERE org_id = 'org-b' OR server_id = $1) +
		(SELECT count(*) FROM memory WHERE org_id = 'org-b' OR server_id = $1)`, agentB.ServerID); n != 0 {
		t.Fatalf("agent A wrote %d rows into org B", n)
	}
	if n := g.count(t, `SELECT batch_hwm FROM agents WHERE id = $1`, agentB.AgentID); n != 0 {
		t.Fatalf("agent A moved agent B's batch_hwm to %d", n)
	}

	// Agent B's own export lands on B, and A's rows stay A's.
	if resp := g.export(t, agentB.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE org_id = 'org-b' AND server_id = $1`, agentB.ServerID); n != 2 {
		t.Fatalf("org B has %d rows, want 2", n)
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE org_id = 'org-a' AND server_id = $1`, agentA.ServerID); n != 2 {
		t.Fatalf("org A has %d rows, want 2", n)
	}
}
