// Command spindle-ingest-bench is the ingest benchmark of issue 12 (docs/benchmarks.md, "Ingest
// end to end against raw COPY"): it enrols N servers through a running gateway's real
// POST /v1/enroll, sends agent-shaped protobuf batches (4 devices of disk I/O, memory, 8 latency
// histograms) from S senders for a duration, and reports acknowledged batches/s, points/s,
// rows/s, column values/s, p50/p99 latency and the CPU of the gateway and of PostgreSQL read from
// /proc. It then measures the same machine's binary COPY of exactly the same rows as the
// baseline, and the ratio of the two.
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// toolGCPercent is the load generator's GOGC unless the environment sets one (the HTTP floor
// server keeps Go's default, as the gateway does).
const toolGCPercent = 400

type options struct {
	gateway, databaseURL        string
	agents, senders             int
	duration, warmup            time.Duration
	gatewayPID, postgresPID     int
	rawDuration                 time.Duration
	rawCopiers, rawChunkBatches int
	progressEvery               time.Duration
	dataAge                     time.Duration
	httpFloor                   time.Duration
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == floorServeFlag {
		if err := serveHTTPFloor(); err != nil {
			fmt.Fprintln(os.Stderr, "spindle-ingest-bench: HTTP floor server:", err)
			os.Exit(1)
		}
		return
	}
	// Hundreds of simulated agents in one process make garbage a real agent (one process per
	// server) never piles up; collected at Go's default pace it costs the cores the gateway and
	// the database share with this tool. GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(toolGCPercent)
	}
	var o options
	flag.StringVar(&o.gateway, "gateway", "http://127.0.0.1:4318", "the gateway's base URL")
	flag.StringVar(&o.databaseURL, "database", "", "PostgreSQL URL with rights to create an organisation and a token, and tables for the raw COPY (required)")
	flag.IntVar(&o.agents, "agents", 200, "servers to enrol")
	flag.IntVar(&o.senders, "senders", 32, "concurrent senders")
	flag.DurationVar(&o.duration, "duration", time.Minute, "measured load")
	flag.DurationVar(&o.warmup, "warmup", 10*time.Second, "load before the measurement (not counted)")
	flag.IntVar(&o.gatewayPID, "gateway-pid", 0, "the gateway's pid, for its CPU (0: not measured)")
	flag.IntVar(&o.postgresPID, "postgres-pid", 0, "the postmaster's pid (first line of postmaster.pid), for the CPU of it and its backends (0: not measured)")
	flag.DurationVar(&o.progressEvery, "progress", 10*time.Second, "print batches/s and the rollup queue this often during the measurement")
	flag.DurationVar(&o.dataAge, "data-age", 6*24*time.Hour, "how far back the first batch's samples start (they run ahead of the clock at 10 s per batch and server; "+
		"TimescaleDB mode: keep them inside the refresh policies' 3-day window, e.g. 24h)")
	flag.DurationVar(&o.rawDuration, "raw-duration", 20*time.Second, "raw COPY baseline duration (0 skips it)")
	flag.IntVar(&o.rawCopiers, "raw-copiers", 2, "connections copying at once for the baseline")
	flag.IntVar(&o.rawChunkBatches, "raw-chunk", 500, "batches' rows per COPY transaction for the baseline")
	flag.DurationVar(&o.httpFloor, "http-floor", 10*time.Second, "after the raw COPY, the same senders against a server that only reads and answers, "+
		"for this long: with the raw COPY's CPU it gives the most any gateway could reach on this machine (0 skips it; needs -raw-duration and -postgres-pid)")
	flag.Parse()
	if o.databaseURL == "" || o.agents < 1 || o.senders < 1 {
		fmt.Fprintln(os.Stderr, "spindle-ingest-bench: -database is required; -agents and -senders must be positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "spindle-ingest-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	db, err := pgxpool.New(ctx, o.databaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.senders * 2}}
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	runID := hex.EncodeToString(id)

	agents, err := enrollAgents(ctx, db, client, o.gateway, runID, o.agents)
	if err != nil {
		return err
	}
	fmt.Printf("enrolled %d servers (run %s)\n", len(agents), runID)
	// Six days back by default: a long run's 10 s intervals stay inside the gateway's 7-day window.
	var acknowledged atomic.Int64
	firstTime := time.Now().Add(-o.dataAge).Truncate(time.Second)
	if o.warmup > 0 {
		if _, err := runLoad(ctx, client, o.gateway, agents, o.senders, o.warmup, firstTime, &acknowledged); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	pendingBefore := rollupPending(ctx, db)
	statements := resetStatements(ctx, db)
	if statements {
		_, _ = db.Exec(ctx, `SELECT pg_stat_reset()`) // pg_stat_user_functions: the trigger functions' time
	}
	groupsBefore := gatewayCounters(ctx, client, o.gateway)
	gatewayCPU, err := startCPU(o.gatewayPID, false)
	if err != nil {
		return err
	}
	postgresCPU, err := startCPU(o.postgresPID, true)
	if err != nil {
		return err
	}
	benchCPU, err := startCPU(os.Getpid(), false)
	if err != nil {
		return err
	}
	measuredFrom := time.Now()
	progressCtx, stopProgress := context.WithCancel(ctx)
	worstRollup := make(chan rollupSample, 1)
	go func() { worstRollup <- progress(progressCtx, db, &acknowledged, o.progressEvery) }()
	load, err := runLoad(ctx, client, o.gateway, agents, o.senders, o.duration, firstTime, &acknowledged)
	stopProgress()
	worst := <-worstRollup
	if err != nil {
		return err
	}
	gatewayPercent, postgresPercent := gatewayCPU.percentOfCore(load.Seconds), postgresCPU.percentOfCore(load.Seconds)
	pendingAfter := rollupPending(ctx, db)
	groupsAfter := gatewayCounters(ctx, client, o.gateway)

	perSecond := float64(load.Batches) / load.Seconds
	fmt.Printf("\ningest: %d servers, %d senders, %.0f s measured\n", len(agents), o.senders, load.Seconds)
	fmt.Printf("  acknowledged batches/s  %10.0f\n", perSecond)
	fmt.Printf("  points/s                %10.0f\n", perSecond*float64(shape.Points))
	fmt.Printf("  rows/s                  %10.0f\n", perSecond*float64(shape.Rows))
	fmt.Printf("  column values/s         %10.0f\n", perSecond*float64(shape.Values))
	fmt.Printf("  latency p50 / p99       %10s / %s\n", percentile(load.Latencies, 0.50).Round(100*time.Microsecond), percentile(load.Latencies, 0.99).Round(100*time.Microsecond))
	benchPercent := benchCPU.percentOfCore(load.Seconds)
	// CPU per batch depends far less on the neighbours of a shared host than batches/s does.
	fmt.Printf("  gateway CPU             %10s of a core, %s per batch\n", cpuText(gatewayPercent), perBatchText(gatewayPercent, perSecond))
	fmt.Printf("  PostgreSQL CPU          %10s of a core, %s per batch\n", cpuText(postgresPercent), perBatchText(postgresPercent, perSecond))
	fmt.Printf("  load generator CPU      %10s of a core, %s per batch (same machine)\n", cpuText(benchPercent), perBatchText(benchPercent, perSecond))
	fmt.Printf("  refused (sent again)    %10s\n", refusedText(load.Refused))
	if groups := groupsAfter["spindle_gateway_ingest_groups_total"] - groupsBefore["spindle_gateway_ingest_groups_total"]; groups > 0 {
		members := groupsAfter["spindle_gateway_ingest_group_members_total"] - groupsBefore["spindle_gateway_ingest_group_members_total"]
		fmt.Printf("  group commits/s         %10.0f (%.1f exports each)\n", float64(groups)/load.Seconds, float64(members)/float64(groups))
	} else {
		fmt.Printf("  group commits           %10s\n", "none reported (a gateway without group commit)")
	}
	fmt.Printf("  rollup_pending rows     %10s before, %s after\n", pendingBefore, pendingAfter)
	if worst.Samples > 0 && !worst.Timescale {
		fmt.Printf("  rollup queue, %d samples %10d rows at most, oldest waited at most %s\n",
			worst.Samples, worst.Pending, worst.OldestAge.Round(time.Second))
	}
	if worst.Timescale {
		speed := perSecond * batchInterval.Seconds() / float64(len(agents)) // sample seconds per second
		fmt.Printf("  1-minute aggregates, %d samples: oldest row possibly not materialised at most %s; newest raw − watermark at most %s of sample time (%s at the run's mean rate); %d invalidation ranges pending at most; %d samples before any refresh\n",
			worst.Samples, worst.Unmaterialised.Round(time.Second), worst.WatermarkLag.Round(time.Second),
			time.Duration(float64(worst.WatermarkLag)/speed).Round(time.Second), worst.PendingRanges, worst.NotYetRefreshed)
		for _, line := range refreshRuns(ctx, db, measuredFrom) {
			fmt.Println("  " + line)
		}
		fmt.Printf("  sample time runs %.0f× the clock (%.0f batches/s × 10 s ÷ %d servers)\n", speed, perSecond, len(agents))
	}

	if statements {
		printStatements(ctx, db, load.Seconds, 12)
	}

	if o.rawDuration <= 0 {
		return nil
	}
	postgresCPU, err = startCPU(o.postgresPID, true)
	if err != nil {
		return err
	}
	if benchCPU, err = startCPU(os.Getpid(), false); err != nil {
		return err
	}
	raw, err := rawCopy(ctx, db, agents, o.rawCopiers, o.rawChunkBatches, o.rawDuration, firstTime)
	if err != nil {
		return err
	}
	rawValues := float64(raw.Values) / raw.Seconds
	rawBatches := rawValues / float64(shape.Values) // the same rows as this many of the load's batches
	rawPostgres, rawClient := postgresCPU.percentOfCore(raw.Seconds), benchCPU.percentOfCore(raw.Seconds)
	fmt.Printf("\nraw binary COPY of the same rows: %d connections, %d batches' rows per COPY, %.0f s\n", o.rawCopiers, o.rawChunkBatches, raw.Seconds)
	fmt.Printf("  rows/s                  %10.0f (the rows of %.0f batches/s)\n", float64(raw.Rows)/raw.Seconds, rawBatches)
	fmt.Printf("  column values/s         %10.0f\n", rawValues)
	fmt.Printf("  PostgreSQL CPU          %10s of a core, %s per batch's rows\n", cpuText(rawPostgres), perBatchText(rawPostgres, rawBatches))
	fmt.Printf("  COPY client CPU         %10s of a core, %s per batch's rows (pgx encoding)\n", cpuText(rawClient), perBatchText(rawClient, rawBatches))
	fmt.Printf("\nratio end to end ÷ raw COPY (column values/s): %.3f\n", perSecond*float64(shape.Values)/rawValues)

	if o.httpFloor <= 0 || rawPostgres < 0 {
		return nil
	}
	floor, err := measureHTTPFloor(ctx, client, agents, o.senders, o.httpFloor, firstTime)
	if err != nil {
		return err
	}
	measuredMs := -1.0
	if gatewayPercent >= 0 && postgresPercent >= 0 && benchPercent >= 0 {
		measuredMs = (gatewayPercent + postgresPercent + benchPercent) / 100 / perSecond * 1000
	}
	printCeiling(floor, (rawPostgres+rawClient)/100/rawBatches*1000, measuredMs)
	return nil
}

// gatewayCounters reads the gateway's GET /metrics counters (empty when it has none).
func gatewayCounters(ctx context.Context, client *http.Client, gateway string) map[string]int64 {
	counters := map[string]int64{}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, gateway+"/metrics", nil)
	if err != nil {
		return counters
	}
	resp, err := client.Do(req)
	if err != nil {
		return counters
	}
	defer resp.Body.Close()
	scanner := bufio.NewScanner(resp.Body)
	for scanner.Scan() {
		var name string
		var value int64
		if line := scanner.Text(); !strings.HasPrefix(line, "#") {
			if _, err := fmt.Sscan(line, &name, &value); err == nil {
				counters[name] = value
			}
		}
	}
	return counters
}

// rollupPending counts the plain-mode rollup queue, or says it has none (TimescaleDB mode).
func rollupPending(ctx context.Context, db *pgxpool.Pool) string {
	var n int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM rollup_pending`).Scan(&n); err != nil {
		return "none (no rollup_pending table)"
	}
	return fmt.Sprint(n)
}

func cpuText(percent float64) string {
	if percent < 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.0f %%", percent)
}

func refusedText(refused map[int]int64) string {
	if len(refused) == 0 {
		return "none"
	}
	codes := make([]int, 0, len(refused))
	for code := range refused {
		codes = append(codes, code)
	}
	sort.Ints(codes)
	text := ""
	for _, code := range codes {
		text += fmt.Sprintf("%d×HTTP %d ", refused[code], code)
	}
	return text
}
