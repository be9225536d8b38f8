// Command spindle-opamp-load measures the gateway's OpAMP server at fleet scale (issue 12): it
// enrols N servers through the store (the same transaction as POST /v1/enroll), connects one
// opamp-go WebSocket client per server to a running gateway, and reports
//   - the gateway's resident memory per connection (from /proc/<gateway-pid>/status),
//   - the database's transactions and row updates per second while the fleet only heartbeats,
//   - save → APPLIED for fleet-wide policy changes: the worker's materialisation of a new
//     effective policy for every server, committed in one transaction, until each server's
//     server_policy_status row says APPLIED, two ways: applied_at (when the gateway received the
//     agent's APPLIED) and when a reader of the database first sees the rows (p50, p99, all),
//     with the CPU seconds the gateway and the database used meanwhile,
//
// while a few other enrolled servers keep exporting OTLP batches (acknowledged / refused).
// The exact command and the figures of a run are in docs/benchmarks.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
)

// toolGCPercent is this tool's GOGC unless the environment sets one.
const toolGCPercent = 400

type options struct {
	databaseURL    string
	gateway        string
	gatewayPID     int
	agents         int
	heartbeat      time.Duration
	idle           time.Duration
	changes        int
	ingestAgents   int
	ingestInterval time.Duration
	connectRate    int
	orgID          string
	hold           bool
}

func main() {
	var o options
	flag.StringVar(&o.databaseURL, "database-url", os.Getenv("DATABASE_URL"), "the gateway's database, as a login that may create an organisation and read pg_stat_database")
	flag.StringVar(&o.gateway, "gateway", "http://127.0.0.1:4318", "the gateway's base URL")
	flag.IntVar(&o.gatewayPID, "gateway-pid", 0, "the gateway's process id, to read its memory (0: not measured)")
	flag.IntVar(&o.agents, "agents", 10000, "OpAMP agents to simulate")
	flag.DurationVar(&o.heartbeat, "heartbeat", 30*time.Second, "each agent's OpAMP heartbeat interval (the agent's default)")
	flag.DurationVar(&o.idle, "idle", 60*time.Second, "how long to measure the database while the fleet only heartbeats")
	flag.IntVar(&o.changes, "changes", 3, "fleet-wide policy changes to time")
	flag.IntVar(&o.ingestAgents, "ingest-agents", 8, "extra enrolled servers exporting OTLP meanwhile")
	flag.DurationVar(&o.ingestInterval, "ingest-interval", time.Second, "how often each ingest server exports")
	flag.IntVar(&o.connectRate, "connect-rate", 500, "WebSocket connections opened per second")
	flag.StringVar(&o.orgID, "org-id", "", "enrol into this existing organisation instead of a new one (a console user's, for the rollout benchmark)")
	flag.BoolVar(&o.hold, "hold", false, "only enrol and connect, print READY <org> <agents> on standard output, and keep the agents connected "+
		"(answering every RemoteConfig) until SIGTERM: the fleet for a benchmark that drives the product itself (e2e/bench/rollout-scale.ts)")
	flag.Parse()
	// 10,000 clients in one process make garbage a real agent (one client, its own process)
	// never piles up: collecting it at Go's default pace, and regrowing the client goroutines'
	// stacks the collector shrinks, took about a quarter of this tool's CPU, which the gateway
	// and the database on the same cores then lacked. GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(toolGCPercent)
	}
	if o.databaseURL == "" || o.agents <= 0 {
		fmt.Fprintln(os.Stderr, "spindle-opamp-load: set -database-url (or DATABASE_URL) and a positive -agents")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "spindle-opamp-load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	raiseFileLimit(o.agents + o.ingestAgents + 1024) // one socket per agent, plus the pools
	admin, err := pgxpool.New(ctx, o.databaseURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	st, err := store.Open(ctx, o.databaseURL, 16)
	if err != nil {
		return err
	}
	defer st.Close()

	started := time.Now()
	fleet, err := enrolFleet(ctx, admin, st, o.orgID, o.agents+o.ingestAgents)
	if err != nil {
		return err
	}
	logf("enrolled %d servers in org %s in %s", len(fleet.servers), fleet.orgID, time.Since(started).Round(time.Millisecond))
	opampServers, ingestServers := fleet.servers[:o.agents], fleet.servers[o.agents:]
	if o.hold {
		return holdFleet(ctx, o, fleet, opampServers)
	}
	if err := fleet.setPolicy(ctx, admin, 0); err != nil {
		return err
	}

	rssBefore := residentBytes(o.gatewayPID)
	agents := newAgents(o)
	defer agents.stopAll()
	started = time.Now()
	if err := agents.connect(ctx, opampServers); err != nil {
		return err
	}
	logf("%d WebSockets connected in %s; waiting for every agent to apply the first policy", agents.connected(), time.Since(started).Round(time.Millisecond))
	if err := fleet.waitApplied(ctx, admin, fleet.hash(0), o.agents, 5*time.Minute); err != nil {
		return err
	}
	settle(ctx, 10*time.Second)
	rssAfter := residentBytes(o.gatewayPID)

	ingest := startIngest(ctx, o, ingestServers)
	idle, err := measureIdle(ctx, admin, o.idle)
	if err != nil {
		return err
	}
	logf("idle: %.1f commits/s, %.1f rows updated/s", idle.commitsPerSecond, idle.rowsUpdatedPerSecond)
	cpu := cpuMeter{gatewayPID: o.gatewayPID, postmasterPID: postmasterPID(ctx, admin)}
	var results []changeResult
	var changeErr error
	for i := 1; i <= o.changes && changeErr == nil; i++ {
		var r changeResult
		if r, changeErr = fleet.timeChange(ctx, admin, cpu, i, o.agents); changeErr == nil {
			results = append(results, r)
			settle(ctx, 5*time.Second)
		}
	}
	ingestResult := ingest.stop()
	report(o, agents.connected(), rssBefore, rssAfter, idle, results, ingestResult)
	return changeErr // a change that timed out is reported after what was measured
}

// holdFleet connects the agents and keeps them connected: the product (its worker, its gateway)
// decides what they are sent; they answer as the agent does.
func holdFleet(ctx context.Context, o options, f *fleet, servers []enrolledServer) error {
	agents := newAgents(o)
	defer agents.stopAll()
	started := time.Now()
	if err := agents.connect(ctx, servers); err != nil {
		return err
	}
	logf("%d WebSockets connected in %s; holding them until SIGTERM", agents.connected(), time.Since(started).Round(time.Millisecond))
	fmt.Printf("READY %s %d\n", f.orgID, agents.connected())
	<-ctx.Done()
	return nil
}

func raiseFileLimit(n int) {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) != nil {
		return
	}
	if uint64(n) > l.Cur {
		l.Cur = min(uint64(n), l.Max)
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
	if uint64(n) > l.Max {
		logf("RLIMIT_NOFILE hard limit %d is below the %d descriptors needed; raise it (ulimit -Hn)", l.Max, n)
	}
}

func settle(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().UTC().Format("15:04:05 ")+format+"\n", args...)
}
