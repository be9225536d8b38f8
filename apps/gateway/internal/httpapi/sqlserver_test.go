package httpapi

import (
	"net/http"
	"testing"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// SQL Server statistics land in sqlserver_stats once per batch, with "not measured" stored as
// NULL, and a replay writes nothing twice.
func TestSQLServerStatisticsAreStoredExactlyOnce(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	other := g.enroll(t, "org-b", "machine-b")
	batches, ratio := int64(900), 0.995
	first, second := sample(1), sample(2)
	md := otlpfixture.Build(first, second)
	otlpfixture.AddSQLServer(md, 0, first, otlpfixture.SQLServer{Instance: "MSSQLSERVER", LifeSeconds: 120})
	otlpfixture.AddSQLServer(md, 1, second, otlpfixture.SQLServer{Instance: "MSSQLSERVER", Batches: &batches, HitRatio: &ratio, LifeSeconds: 130})
	body := otlpfixture.Proto(md)
	for attempt := 0; attempt < 2; attempt++ { // the second delivery is a replay after a lost acknowledgement
		if resp := g.export(t, agent.Credential, body); resp.StatusCode != http.StatusOK {
			t.Fatalf("attempt %d: status %d: %s", attempt, resp.StatusCode, readAll(t, resp))
		}
	}
	checks := map[string]int{
		`SELECT count(*) FROM sqlserver_stats`: 2,
		`SELECT count(*) FROM sqlserver_stats WHERE batch_requests IS NULL AND buffer_cache_hit_ratio IS NULL AND page_life_expectancy_s = 120`: 1,
		`SELECT sum(batch_requests) FROM sqlserver_stats WHERE buffer_cache_hit_ratio = 0.995 AND page_life_expectancy_s = 130`:                 900,
		`SELECT count(*) FROM sqlserver_stats WHERE org_id = '` + agent.OrgID + `' AND server_id = '` + agent.ServerID + `'`:                    2,
		`SELECT count(*) FROM sqlserver_stats WHERE org_id = '` + other.OrgID + `'`:                                                             0,
	}
	for sql, want := range checks {
		if got := g.count(t, sql); got != want {
			t.Errorf("%s = %d, want %d", sql, got, want)
		}
	}
}
