package benchrun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bench"
)

// gatewayDouble speaks the gateway's side of docs/agent-protocol.md "Proof runs" from a queue the
// test fills, and records what the agent posts. The real gateway is exercised with this runner
// in e2e/integration/bench-runs.test.ts; here the agent's own rules are checked in isolation.
type gatewayDouble struct {
	mu        sync.Mutex
	queue     []map[string]any // commands handed out in order
	cancel    map[string]bool  // runs the "user" cancelled (answered on progress)
	progress  map[string][]float64
	finished  map[string]map[string]any
	profiles  []string
	finishedC chan string
	// forgetful hands out queued runs even to a poll naming a run in progress, as a gateway
	// restored from a backup that lost track of the run would: the agent must refuse them.
	forgetful bool
	polls     []time.Time // when each poll arrived
}

func newGatewayDouble() *gatewayDouble {
	return &gatewayDouble{cancel: map[string]bool{}, progress: map[string][]float64{}, finished: map[string]map[string]any{},
		finishedC: make(chan string, 10)}
}

func (g *gatewayDouble) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer spa_test" {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.URL.Path == "/v1/bench/profiles":
		var p struct{ Profiles []struct{ Name string } }
		_ = json.Unmarshal(body, &p)
		for _, profile := range p.Profiles {
			g.profiles = append(g.profiles, profile.Name)
		}
		w.WriteHeader(http.StatusNoContent)
	case r.URL.Path == "/v1/bench/next":
		g.polls = append(g.polls, time.Now())
		// As the gateway does: a poll naming a run is never handed a new one; a named run that
		// has finished is answered with a cancel.
		if running := r.URL.Query().Get("running"); running != "" && !g.forgetful {
			if _, done := g.finished[running]; done {
				_ = json.NewEncoder(w).Encode(map[string]string{"cancel": running})
				return
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if len(g.queue) == 0 {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		command := g.queue[0]
		g.queue = g.queue[1:]
		_ = json.NewEncoder(w).Encode(command)
	case strings.HasSuffix(r.URL.Path, "/progress"):
		id := strings.Split(r.URL.Path, "/")[4]
		var p struct{ Fraction float64 }
		_ = json.Unmarshal(body, &p)
		g.progress[id] = append(g.progress[id], p.Fraction)
		_ = json.NewEncoder(w).Encode(map[string]bool{"cancel": g.cancel[id]})
	case strings.HasSuffix(r.URL.Path, "/finish"):
		id := strings.Split(r.URL.Path, "/")[4]
		var outcome map[string]any
		_ = json.Unmarshal(body, &outcome)
		g.finished[id] = outcome
		g.finishedC <- id
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (g *gatewayDouble) push(command map[string]any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queue = append(g.queue, command)
}

func (g *gatewayDouble) outcome(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case got := <-g.finishedC:
			if got == id {
				g.mu.Lock()
				defer g.mu.Unlock()
				return g.finished[id]
			}
		case <-deadline:
			t.Fatalf("run %s did not finish", id)
		}
	}
}

func startRunner(t *testing.T, g *gatewayDouble, allowed ...string) {
	t.Helper()
	startRunnerWith(t, g, 20*time.Millisecond, allowed...)
}

func startRunnerWith(t *testing.T, g *gatewayDouble, minEmptyPoll time.Duration, allowed ...string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the bench engine's generator runs on Linux")
	}
	server := httptest.NewServer(g)
	t.Cleanup(server.Close)
	r, err := New(Settings{Gateway: server.URL, Credential: "spa_test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		AllowedPaths: allowed, PollWaitSeconds: 1, ProgressEvery: 200 * time.Millisecond, RetryAfter: 100 * time.Millisecond,
		MinEmptyPoll: minEmptyPoll})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func start(id string, parameters map[string]any) map[string]any {
	return map[string]any{"start": map[string]any{"runId": id, "profile": "fileserver", "parameters": parameters}}
}

func tinyRequest(dir string, stepSeconds float64, loads int) map[string]any {
	steps := []map[string]int{}
	for i := 1; i <= loads; i++ {
		steps = append(steps, map[string]int{"threads": 1, "outstanding": i})
	}
	// A target of ±100 % stops an A/B run after its least blocks (2) on any but a wildly noisy
	// machine; the time limit bounds it then.
	return map[string]any{"paths": []string{dir}, "sizeLimitBytes": 32 << 20, "timeLimitSeconds": 300, "stepSeconds": stepSeconds,
		"latencyLimitSeconds": 0.05, "ab": true, "directIO": false, "loads": steps, "targetHalfWidthPercent": 100}
}

func TestRunsARequestAndPostsItsReport(t *testing.T) {
	g := newGatewayDouble()
	dir := t.TempDir()
	startRunner(t, g, dir)
	g.push(start("run-1", tinyRequest(dir, 1, 1)))
	outcome := g.outcome(t, "run-1")
	if outcome["status"] != "succeeded" {
		t.Fatalf("outcome %v", outcome)
	}
	report, _ := outcome["report"].(map[string]any)
	steps, _ := report["steps"].([]any)
	if len(steps) != 1 || report["ab"] != true {
		t.Fatalf("report %v", report)
	}
	g.mu.Lock()
	progress, profiles := g.progress["run-1"], g.profiles
	g.mu.Unlock()
	if len(progress) == 0 {
		t.Fatal("no progress posted")
	}
	if !strings.Contains(strings.Join(profiles, ","), "fileserver") {
		t.Fatalf("profiles offered: %v", profiles)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files left behind: %v", entries)
	}
}

func TestCancelsOnRequestAndRefusesASecondRun(t *testing.T) {
	g := newGatewayDouble()
	g.forgetful = true
	dir := t.TempDir()
	startRunner(t, g, dir)
	g.push(start("long", tinyRequest(dir, 5, 4)))
	// Wait for the run to report, then hand out a second run: it must be refused.
	deadline := time.Now().Add(30 * time.Second)
	for {
		g.mu.Lock()
		n := len(g.progress["long"])
		g.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the long run never reported progress")
		}
		time.Sleep(50 * time.Millisecond)
	}
	g.push(start("second", tinyRequest(dir, 1, 1)))
	second := g.outcome(t, "second")
	if second["status"] != "failed" || !strings.Contains(second["error"].(string), "already running proof run long") {
		t.Fatalf("second run: %v", second)
	}
	g.mu.Lock()
	g.cancel["long"] = true
	g.mu.Unlock()
	outcome := g.outcome(t, "long")
	if outcome["status"] != "cancelled" {
		t.Fatalf("cancelled run: %v", outcome)
	}
	// The passes that finished come with it, marked incomplete and stating no change.
	report, _ := outcome["report"].(map[string]any)
	steps, _ := report["steps"].([]any)
	if report["complete"] != false || len(steps) != 4 {
		t.Fatalf("cancelled run's report: %v", report)
	}
	change := steps[0].(map[string]any)["change"].(map[string]any)["throughput"].(map[string]any)
	if change["status"] != "not-measured" || change["percent"] != nil || !strings.Contains(change["reason"].(string), "did not finish") {
		t.Fatalf("a cancelled run stated a change: %v", change)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files left behind: %v", entries)
	}
}

func TestRefusesParametersItDoesNotUnderstand(t *testing.T) {
	g := newGatewayDouble()
	allowed := t.TempDir()
	startRunner(t, g, allowed)
	params := tinyRequest(allowed, 1, 1)
	params["fsync"] = "never"
	g.push(start("odd", params))
	if outcome := g.outcome(t, "odd"); outcome["status"] != "failed" || !strings.Contains(outcome["error"].(string), `unknown field "fsync"`) {
		t.Fatalf("outcome %v", outcome)
	}
	outside := tinyRequest(t.TempDir(), 1, 1)
	g.push(start("outside", outside))
	if outcome := g.outcome(t, "outside"); outcome["status"] != "failed" || !strings.Contains(outcome["error"].(string), "not one this agent allows") {
		t.Fatalf("outcome %v", outcome)
	}
	// A link inside the allowed directory pointing elsewhere does not widen it.
	link := allowed + "/escape"
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	g.push(start("link", tinyRequest(link, 1, 1)))
	if outcome := g.outcome(t, "link"); outcome["status"] != "failed" || !strings.Contains(outcome["error"].(string), "not one this agent allows") {
		t.Fatalf("outcome %v", outcome)
	}
	g.push(start("relative", map[string]any{"paths": []string{"srv/bench"}, "sizeLimitBytes": 1 << 20, "timeLimitSeconds": 60, "ab": true}))
	if outcome := g.outcome(t, "relative"); outcome["status"] != "failed" || !strings.Contains(outcome["error"].(string), "not absolute") {
		t.Fatalf("outcome %v", outcome)
	}
}

func TestRefusesEveryRunWithoutAllowedPaths(t *testing.T) {
	g := newGatewayDouble()
	startRunner(t, g)
	g.push(start("any", tinyRequest(t.TempDir(), 1, 1)))
	if outcome := g.outcome(t, "any"); outcome["status"] != "failed" || !strings.Contains(outcome["error"].(string), "bench.paths in agent.yaml") {
		t.Fatalf("outcome %v", outcome)
	}
}

// A gateway (or a proxy in front of it) that answers the long poll at once must not make the
// agent spin: empty polls are at least MinEmptyPoll apart. Only a lower bound on elapsed time is
// asserted, which a slow machine cannot break.
func TestDoesNotSpinOnPollsAnsweredAtOnce(t *testing.T) {
	g := newGatewayDouble()
	startRunnerWith(t, g, 200*time.Millisecond, t.TempDir())
	for {
		g.mu.Lock()
		n := len(g.polls)
		first, last := time.Time{}, time.Time{}
		if n > 0 {
			first, last = g.polls[0], g.polls[n-1]
		}
		g.mu.Unlock()
		if n >= 4 {
			if gap := last.Sub(first); gap < 3*200*time.Millisecond {
				t.Fatalf("4 empty polls within %v, want them at least 200ms apart", gap)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Issue 25, L1: the binary a run executes as root, the database it connects to and the free space
// it must leave come from agent.yaml only. A run's parameters naming them (whoever wrote the
// row) are refused before anything runs; the console's ordinary request gets them from Local.
func TestTakesTheFloorAndThePgbenchTargetFromAgentYAMLOnly(t *testing.T) {
	local := Local{FreeSpaceFloorBytes: 123 << 20,
		Postgres: &bench.PostgresTarget{ConnString: "host=/run/postgresql user=bench", PgbenchPath: "/usr/lib/postgresql/15/bin/pgbench"}}
	for _, c := range []struct {
		name  string
		local Local
	}{{"configured", local}, {"no pgbench in agent.yaml", Local{}}} {
		t.Run(c.name, func(t *testing.T) {
			g := newGatewayDouble()
			allowed := t.TempDir()
			got := make(chan bench.Request, 4)
			server := httptest.NewServer(g)
			t.Cleanup(server.Close)
			r, err := New(Settings{Gateway: server.URL, Credential: "spa_test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				AllowedPaths: []string{allowed}, Local: c.local, PollWaitSeconds: 1, ProgressEvery: 200 * time.Millisecond,
				RetryAfter: 100 * time.Millisecond, MinEmptyPoll: 20 * time.Millisecond,
				Run: func(_ context.Context, req bench.Request, _ bench.Accelerator, _ func(bench.Progress)) (*bench.Report, error) {
					got <- req
					return &bench.Report{}, nil
				},
				NewAccelerator: func(*slog.Logger) (bench.Accelerator, error) { return nil, errors.New("not in this test") }})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { r.Run(ctx); close(done) }()
			t.Cleanup(func() { cancel(); <-done })

			pgbench := func(id string, extra map[string]any) map[string]any {
				params := map[string]any{"paths": []string{allowed}, "sizeLimitBytes": 64 << 20, "timeLimitSeconds": 600,
					"stepSeconds": 1, "latencyLimitSeconds": 0.1, "ab": false, "directIO": false}
				for k, v := range extra {
					params[k] = v
				}
				return map[string]any{"start": map[string]any{"runId": id, "profile": "pgbench", "parameters": params}}
			}
			for id, extra := range map[string]map[string]any{
				"binary":  {"postgres": map[string]any{"connString": "host=/tmp", "pgbenchPath": "/tmp/evil"}},
				"floor":   {"freeSpaceFloorBytes": 1},
				"profile": {"profile": "pgbench"},
			} {
				g.push(pgbench(id, extra))
				outcome := g.outcome(t, id)
				if outcome["status"] != "failed" || !strings.Contains(outcome["error"].(string), "set in agent.yaml only") {
					t.Fatalf("%s: %v", id, outcome)
				}
			}
			g.push(pgbench("ordinary", nil))
			outcome := g.outcome(t, "ordinary")
			if c.local.Postgres == nil {
				if outcome["status"] != "failed" || !strings.Contains(outcome["error"].(string), "bench.pgbench.conn_string") {
					t.Fatalf("a pgbench run without a database in agent.yaml: %v", outcome)
				}
				return
			}
			if outcome["status"] != "succeeded" {
				t.Fatalf("ordinary: %v", outcome)
			}
			req := <-got
			if req.FreeSpaceFloorBytes != local.FreeSpaceFloorBytes || req.Postgres == nil || *req.Postgres != *local.Postgres {
				t.Fatalf("the run got floor %d and target %+v; want agent.yaml's %d and %+v", req.FreeSpaceFloorBytes, req.Postgres,
					local.FreeSpaceFloorBytes, *local.Postgres)
			}
			if len(got) != 0 {
				t.Fatal("a refused run was run")
			}
		})
	}
}
