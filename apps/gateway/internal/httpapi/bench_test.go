package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// queueRun inserts a queued proof run as the console does and returns its id.
func (g *gateway) queueRun(t *testing.T, orgID, serverID string) string {
	t.Helper()
	var id string
	err := g.db.QueryRow(context.Background(), `
		INSERT INTO benchmark_runs (org_id, server_id, profile, parameters)
		VALUES ($1, $2, 'sqlio', '{"paths": ["/srv/bench"], "sizeBytes": 1048576}') RETURNING id::text`, orgID, serverID).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (g *gateway) benchGet(t *testing.T, credential, query string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, g.url+"/v1/bench/next"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+credential)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (g *gateway) benchPost(t *testing.T, credential, path, body string) *http.Response {
	t.Helper()
	return g.post(t, path, map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + credential}, []byte(body))
}

func (g *gateway) runStatus(t *testing.T, id string) (status string, progress *float64, phase, errText *string) {
	t.Helper()
	err := g.db.QueryRow(context.Background(), `SELECT status, progress, phase, error FROM benchmark_runs WHERE id = $1`, id).
		Scan(&status, &progress, &phase, &errText)
	if err != nil {
		t.Fatal(err)
	}
	return status, progress, phase, errText
}

type benchCommand struct {
	Start *struct {
		RunID      string          `json:"runId"`
		Profile    string          `json:"profile"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"start"`
	Cancel string `json:"cancel"`
}

func TestBenchRunLifecycle(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")

	// The agent offers its profiles; the console's form reads them from agents.capabilities.
	profiles := `{"profiles": [{"name": "sqlio", "description": "SQLIO-style sweep", "kind": "generator", "source": "SEED-FACTS.md", "steps": 12}], "paths": ["/srv/bench"]}`
	if resp := g.benchPost(t, agent.Credential, "/v1/bench/profiles", profiles); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("profiles: %d %s", resp.StatusCode, readAll(t, resp))
	}
	if n := g.count(t, `SELECT count(*) FROM agents WHERE id = $1 AND capabilities->'bench'->'profiles'->0->>'name' = 'sqlio' AND capabilities->'bench'->'paths'->>0 = '/srv/bench'`, agent.AgentID); n != 1 {
		t.Fatal("profiles not recorded")
	}
	expectError(t, g.benchPost(t, agent.Credential, "/v1/bench/profiles", `{"profiles": [{"name": "DROP TABLE"}]}`), http.StatusBadRequest, reasonMalformed)
	expectError(t, g.benchPost(t, agent.Credential, "/v1/bench/profiles", `{"profiles": [{"name": "sqlio"}], "paths": ["relative/dir"]}`), http.StatusBadRequest, reasonMalformed)

	// Nothing queued: an immediate answer with no content.
	if resp := g.benchGet(t, agent.Credential, "?wait=0"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("idle poll: %d %s", resp.StatusCode, readAll(t, resp))
	}

	id := g.queueRun(t, "org-a", agent.ServerID)
	resp := g.benchGet(t, agent.Credential, "?wait=5")
	var command benchCommand
	decodeJSON(t, resp, &command)
	if command.Start == nil || command.Start.RunID != id || command.Start.Profile != "sqlio" ||
		!strings.Contains(string(command.Start.Parameters), "/srv/bench") {
		t.Fatalf("start command %+v", command)
	}
	if status, _, _, _ := g.runStatus(t, id); status != "running" {
		t.Fatalf("taken run is %s, want running", status)
	}

	resp = g.benchPost(t, agent.Credential, "/v1/bench/runs/"+id+"/progress", `{"fraction": 0.25, "phase": "pass 1 of 4 (off): step 1 of 3"}`)
	var answer struct{ Cancel bool }
	decodeJSON(t, resp, &answer)
	if answer.Cancel {
		t.Fatal("cancel asked although nobody cancelled")
	}
	if _, progress, phase, _ := g.runStatus(t, id); progress == nil || *progress != 0.25 || phase == nil || !strings.HasPrefix(*phase, "pass 1") {
		t.Fatalf("progress %v phase %v", progress, phase)
	}

	// The agent still runs it: asking again with ?running= yields nothing new.
	if resp := g.benchGet(t, agent.Credential, "?wait=0&running="+id); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("poll while running: %d %s", resp.StatusCode, readAll(t, resp))
	}

	report := `{"status": "succeeded", "report": {"profile": "sqlio", "steps": [{"name": "4k randread q1"}]}}`
	if resp := g.benchPost(t, agent.Credential, "/v1/bench/runs/"+id+"/finish", report); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("finish: %d %s", resp.StatusCode, readAll(t, resp))
	}
	status, progress, _, _ := g.runStatus(t, id)
	if status != "succeeded" || progress == nil || *progress != 1 {
		t.Fatalf("finished run: %s %v", status, progress)
	}
	if n := g.count(t, `SELECT count(*) FROM benchmark_runs WHERE id = $1 AND report->'steps'->0->>'name' = '4k randread q1' AND finished_at IS NOT NULL`, id); n != 1 {
		t.Fatal("report not stored")
	}
	// A finished run takes no more progress.
	expectError(t, g.benchPost(t, agent.Credential, "/v1/bench/runs/"+id+"/progress", `{"fraction": 0.5}`), http.StatusNotFound, reasonNotFound)
}

func TestBenchCancelReachesTheAgent(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	id := g.queueRun(t, "org-a", agent.ServerID)
	var command benchCommand
	decodeJSON(t, g.benchGet(t, agent.Credential, "?wait=0"), &command)
	if command.Start == nil {
		t.Fatal("run not handed out")
	}

	// The long poll of the running agent returns as soon as the console asks to cancel.
	got := make(chan benchCommand, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, g.url+"/v1/bench/next?wait=20&running="+id, nil)
		req.Header.Set("Authorization", "Bearer "+agent.Credential)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- benchCommand{}
			return
		}
		defer resp.Body.Close()
		var c benchCommand
		_ = json.NewDecoder(resp.Body).Decode(&c)
		got <- c
	}()
	time.Sleep(200 * time.Millisecond) // let the poll start waiting; it re-reads every second without a waker
	if _, err := g.db.Exec(context.Background(), `UPDATE benchmark_runs SET status = 'cancelling', cancel_requested_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-got:
		if c.Cancel != id {
			t.Fatalf("long poll answered %+v, want cancel of %s", c, id)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the long poll did not hear the cancel")
	}
	var answer struct{ Cancel bool }
	decodeJSON(t, g.benchPost(t, agent.Credential, "/v1/bench/runs/"+id+"/progress", `{"fraction": 0.3, "phase": "stopping"}`), &answer)
	if !answer.Cancel {
		t.Fatal("progress answer does not ask to cancel")
	}
	// A cancelled run brings the passes it finished: stored, for the console to show without a change.
	partial := `{"status": "cancelled", "report": {"complete": false, "steps": [{"index": 1}]}}`
	if resp := g.benchPost(t, agent.Credential, "/v1/bench/runs/"+id+"/finish", partial); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("finish cancelled: %d %s", resp.StatusCode, readAll(t, resp))
	}
	if status, _, _, _ := g.runStatus(t, id); status != "cancelled" {
		t.Fatalf("status %s, want cancelled", status)
	}
	if n := g.count(t, `SELECT count(*) FROM benchmark_runs WHERE id = $1 AND report->>'complete' = 'false'`, id); n != 1 {
		t.Fatal("the cancelled run's partial report was not stored")
	}
}

func TestBenchOtherAgentCannotReport(t *testing.T) {
	g := newGateway(t)
	owner := g.enroll(t, "org-a", "machine-a")
	sameOrg := g.enroll(t, "org-a", "machine-b")
	otherOrg := g.enroll(t, "org-b", "machine-c")
	id := g.queueRun(t, "org-a", owner.ServerID)

	// Other agents are never handed the run.
	for _, other := range []enrolledAgent{sameOrg, otherOrg} {
		if resp := g.benchGet(t, other.Credential, "?wait=0"); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("another agent got work: %d %s", resp.StatusCode, readAll(t, resp))
		}
	}
	var command benchCommand
	decodeJSON(t, g.benchGet(t, owner.Credential, "?wait=0"), &command)
	if command.Start == nil || command.Start.RunID != id {
		t.Fatal("owner did not get its run")
	}
	for _, other := range []enrolledAgent{sameOrg, otherOrg} {
		expectError(t, g.benchPost(t, other.Credential, "/v1/bench/runs/"+id+"/progress", `{"fraction": 0.9}`), http.StatusNotFound, reasonNotFound)
		expectError(t, g.benchPost(t, other.Credential, "/v1/bench/runs/"+id+"/finish", `{"status": "succeeded", "report": {"steps": []}}`), http.StatusNotFound, reasonNotFound)
	}
	expectError(t, g.benchPost(t, "spa_not-a-real-credential-0000000000000000000000", "/v1/bench/runs/"+id+"/progress", `{"fraction": 0.9}`), http.StatusUnauthorized, reasonUnauthenticated)
	if status, progress, _, _ := g.runStatus(t, id); status != "running" || progress != nil {
		t.Fatalf("others changed the run: %s %v", status, progress)
	}
}

func TestBenchRefusesBadReports(t *testing.T) {
	g := newGateway(t, func(o *Options) { o.MaxBenchReportBytes = 4096 })
	agent := g.enroll(t, "org-a", "machine-a")
	id := g.queueRun(t, "org-a", agent.ServerID)
	g.benchGet(t, agent.Credential, "?wait=0")
	path := "/v1/bench/runs/" + id
	for name, body := range map[string]string{
		"not JSON":           `{"status": "succeeded", "report": `,
		"report not object":  `{"status": "succeeded", "report": [1, 2]}`,
		"no report":          `{"status": "succeeded"}`,
		"unknown status":     `{"status": "done", "report": {}}`,
		"failed without why": `{"status": "failed"}`,
		"partial not object": `{"status": "failed", "error": "stopped", "report": "passes"}`,
		"unknown field":      `{"status": "cancelled", "extra": 1}`,
	} {
		t.Run(name, func(t *testing.T) {
			expectError(t, g.benchPost(t, agent.Credential, path+"/finish", body), http.StatusBadRequest, reasonMalformed)
		})
	}
	for _, body := range []string{`{"fraction": 1.5}`, `{"phase": "no fraction"}`, `{"fraction": -0.1}`} {
		expectError(t, g.benchPost(t, agent.Credential, path+"/progress", body), http.StatusBadRequest, reasonMalformed)
	}
	huge := fmt.Sprintf(`{"status": "succeeded", "report": {"pad": %q}}`, strings.Repeat("x", 5000))
	expectError(t, g.benchPost(t, agent.Credential, path+"/finish", huge), http.StatusRequestEntityTooLarge, reasonTooLarge)
	if status, _, _, _ := g.runStatus(t, id); status != "running" {
		t.Fatalf("a refused report changed the run: %s", status)
	}
}

func TestBenchLostRunsFail(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	id := g.queueRun(t, "org-a", agent.ServerID)
	g.benchGet(t, agent.Credential, "?wait=0")

	// The agent restarted: it asks for work without naming the run it was running.
	if resp := g.benchGet(t, agent.Credential, "?wait=0"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("restart poll: %d %s", resp.StatusCode, readAll(t, resp))
	}
	status, _, _, errText := g.runStatus(t, id)
	if status != "failed" || errText == nil || !strings.Contains(*errText, "restarted") {
		t.Fatalf("lost run: %s %v", status, errText)
	}

	// A run whose agent went silent fails in the sweep.
	second := g.queueRun(t, "org-a", agent.ServerID)
	g.benchGet(t, agent.Credential, "?wait=0")
	if _, err := g.db.Exec(context.Background(), `UPDATE benchmark_runs SET heartbeat_at = now() - interval '5 minutes' WHERE id = $1`, second); err != nil {
		t.Fatal(err)
	}
	failed, err := g.server.store.FailSilentBenchRuns(context.Background(), 90*time.Second)
	if err != nil || failed != 1 {
		t.Fatalf("sweep failed %d runs, err %v", failed, err)
	}
	status, _, _, errText = g.runStatus(t, second)
	if status != "failed" || errText == nil || !strings.Contains(*errText, "stopped reporting") {
		t.Fatalf("silent run: %s %v", status, errText)
	}
}

// A gateway that begins to shut down answers the long polls at once (204), so its shutdown
// waits for exports in flight, never for a poll's 30 s.
func TestBenchLongPollEndsWhenDraining(t *testing.T) {
	draining := make(chan struct{})
	g := newGateway(t, func(o *Options) { o.Draining = draining })
	agent := g.enroll(t, "org-a", "machine-a")
	answered := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, g.url+"/v1/bench/next?wait=30", nil)
		req.Header.Set("Authorization", "Bearer "+agent.Credential)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	select {
	case code := <-answered:
		t.Fatalf("the long poll answered %d before the gateway drained", code)
	case <-time.After(300 * time.Millisecond): // the poll is waiting (nothing queued)
	}
	close(draining)
	select {
	case code := <-answered:
		if code != http.StatusNoContent {
			t.Fatalf("draining answered %d, want 204", code)
		}
	case <-time.After(25 * time.Second): // well inside the poll's own 30 s: only draining ends it sooner
		t.Fatal("the long poll did not end when the gateway began to drain")
	}
}
