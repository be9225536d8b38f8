// Command spoolfill writes a long gateway outage into a stopped agent's spool in seconds: the
// agent's own collectors (meminfo, diskstats), export pipeline, sequence and spool, driven by
// a fake clock that steps one interval per batch, so the batches are byte for byte what the
// agent would have spooled had it run that long with the gateway away. The fault tests
// (e2e/integration/faults.test.ts) then start the real agent and count what the real gateway
// writes when it replays them.
//
//	go run ./internal/export/spoolfill --config /etc/spindle/agent.yaml --batches 8640 --step 10s
//
// The last batch ends now; the first starts batches×step earlier. It prints one JSON line:
// the sequence numbers and times it spooled, and the spool's size afterwards. Run it only
// while the agent is stopped: the spool has one writer.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/export"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// Summary is the JSON line spoolfill prints.
type Summary struct {
	Batches        int       `json:"batches"`
	FirstSeq       uint64    `json:"firstSeq"`
	LastSeq        uint64    `json:"lastSeq"`
	From           time.Time `json:"from"`
	To             time.Time `json:"to"`
	SpoolBytes     int64     `json:"spoolBytes"`
	SpoolMax       int64     `json:"spoolMaxBytes"`
	DroppedByBound uint64    `json:"droppedByBound"`
}

func main() {
	configPath := flag.String("config", config.DefaultPath, "the stopped agent's agent.yaml")
	batches := flag.Int("batches", 8640, "batches to spool (8640 = a day of 10 s intervals)")
	step := flag.Duration("step", 10*time.Second, "interval each batch covers")
	flag.Parse()
	summary, err := fill(*configPath, *batches, *step)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spoolfill:", err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(summary)
}

func fill(configPath string, batches int, step time.Duration) (Summary, error) {
	if batches < 1 || step <= 0 {
		return Summary{}, errors.New("--batches must be at least 1 and --step positive")
	}
	cfg, err := config.Load(configPath)
	if err != nil {
		return Summary{}, err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	host, err := hostinfo.Collect(hostinfo.SourcesFor(cfg.StateDir, cfg.HostRoot))
	if err != nil {
		return Summary{}, err
	}
	sp, err := spool.Open(cfg.SpoolDir(), cfg.Spool.MaxBytes, logger)
	if err != nil {
		return Summary{}, err
	}
	seq, err := spool.OpenSequence(cfg.SequencePath(), sp.Stats().NewestSeq)
	if err != nil {
		return Summary{}, err
	}
	collectors, err := collector.Build([]string{"diskstats", "meminfo"},
		collector.Options{ProcPath: cfg.ProcPath, SysPath: cfg.SysPath, Logger: logger})
	if err != nil {
		return Summary{}, err
	}
	runner := collector.NewRunner(collectors, logger)
	defer runner.Close()

	to := time.Now().Truncate(time.Second)
	clock := to.Add(-time.Duration(batches) * step)
	ctx := context.Background()
	pipeline, err := export.New(ctx, export.Settings{
		Resource: export.BaseResource(host, "spoolfill", cfg.AgentID),
		Spool:    sp, Sequence: seq, Now: func() time.Time { return clock },
	})
	if err != nil {
		return Summary{}, err
	}

	summary := Summary{From: clock, To: to}
	for range batches {
		clock = clock.Add(step)
		runner.Collect(ctx, pipeline.Sink())
		n, err := pipeline.Flush(ctx)
		if err != nil {
			return summary, err
		}
		if n == 0 {
			return summary, fmt.Errorf("the collectors recorded nothing at %s", clock)
		}
		if summary.FirstSeq == 0 {
			summary.FirstSeq = n
		}
		summary.LastSeq = n
		summary.Batches++
	}
	st := sp.Stats()
	summary.SpoolBytes, summary.SpoolMax, summary.DroppedByBound = st.Bytes, st.MaxBytes, st.DroppedBatches
	return summary, nil
}
