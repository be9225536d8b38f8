// Package agent wires the parts together for `spindle-agent run`: every interval the
// collectors run, the pipeline turns what they recorded into one numbered OTLP batch on the
// spool, and status.json is refreshed; the forwarder delivers the spool in the background.
package agent

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/spindle-io/spindle/agent/internal/accel/readcache"
	"github.com/spindle-io/spindle/agent/internal/bench"
	"github.com/spindle-io/spindle/agent/internal/benchrun"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/credential"
	"github.com/spindle-io/spindle/agent/internal/export"
	"github.com/spindle-io/spindle/agent/internal/forward"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
	"github.com/spindle-io/spindle/agent/internal/spool"
	"github.com/spindle-io/spindle/agent/internal/status"
)

// Options are what Run needs besides the config.
type Options struct {
	Version string
	Logger  *slog.Logger
	// DrainTimeout bounds how long shutdown waits for the forwarder to deliver what is
	// spooled; what is left is sent at the next start. Default 5 s.
	DrainTimeout time.Duration
	// Forward overrides delivery tuning (tests); Gateway, Credential, Spool, Logger and
	// UserAgent are always set from the config.
	Forward forward.Settings
	// Renew tunes background credential renewal (docs/agent-protocol.md, "Credential renewal").
	Renew RenewSettings
	// WindowsService is set when the service control manager runs the agent: upgrades then
	// restart the service.
	WindowsService bool
}

type agent struct {
	cfg       config.Config
	opts      Options
	log       *slog.Logger
	spool     *spool.Spool
	sequence  *spool.Sequence
	pipeline  *export.Pipeline
	runner    *collector.Runner
	reporters []collector.DiskRatesReporter
	caps      []collector.Capability
	forwarder *forward.Forwarder
	cred      *credential.Holder // read per request by the forwarder, OpAMP and proof runs
	accel     *accelFeatures
	scanner   collector.FragmentationPolicy // the fragmentation collector; nil when it is off
	started   time.Time
	host      hostinfo.Info
	policy    policyWiring

	configPath   string // agent.yaml, named in messages that ask for a local change
	droppedSeen  uint64
	seqLagging   bool // batch.seq could not be written: warned once per episode
	lastSeq      uint64
	lastExportEr string
}

// Run samples and ships until ctx is cancelled (SIGINT/SIGTERM), then spools the partial
// interval, gives delivery a moment, and writes a final status.
func Run(ctx context.Context, cfg config.Config, configPath string, opts Options) error {
	if err := cfg.RequireEnrolled(configPath); err != nil {
		return err
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 5 * time.Second
	}
	a, err := build(ctx, cfg, opts)
	if err != nil {
		return err
	}
	a.configPath = configPath
	defer a.runner.Close()
	a.accel.start()
	defer a.accel.close()

	if err := a.startPolicy(ctx); err != nil {
		return err
	}
	defer a.stopPolicy()

	// Proof runs requested from the console (docs/agent-protocol.md, "Proof runs"), one at a
	// time in the background; on shutdown a run in progress stops and removes its files.
	benchLocal := benchrun.Local{FreeSpaceFloorBytes: cfg.Bench.FreeSpaceFloorBytes}
	if cfg.Bench.Pgbench.ConnString != "" {
		benchLocal.Postgres = &bench.PostgresTarget{ConnString: cfg.Bench.Pgbench.ConnString, PgbenchPath: cfg.Bench.Pgbench.Path}
	}
	benchRunner, err := benchrun.New(benchrun.Settings{Gateway: cfg.Gateway, CredentialFunc: a.cred.Secret, AllowedPaths: cfg.Bench.Paths, Local: benchLocal,
		UserAgent: "spindle-agent/" + opts.Version, Logger: a.log.With("component", "benchrun")})
	if err != nil {
		return err
	}
	benchCtx, stopBench := context.WithCancel(context.Background())
	benchDone := make(chan struct{})
	go func() { benchRunner.Run(benchCtx); close(benchDone) }()
	defer func() { stopBench(); <-benchDone }()

	// Credential renewal: at once if due, then hourly; stops with the agent.
	renewCtx, stopRenew := context.WithCancel(ctx)
	renewDone := make(chan struct{})
	go func() {
		newRenewer(a.cred, configPath, a.log.With("component", "renew"), opts.Renew).Run(renewCtx)
		close(renewDone)
	}()
	defer func() { stopRenew(); <-renewDone }()

	fwdCtx, stopForwarder := context.WithCancel(context.Background())
	fwdDone := make(chan struct{})
	go func() { a.forwarder.Run(fwdCtx); close(fwdDone) }()

	a.log.Info("agent started", "version", opts.Version, "gateway", cfg.Gateway, "interval", a.currentInterval(),
		"server_id", cfg.ServerID, "spooled_batches", a.spool.Stats().Batches)
	ticker := time.NewTicker(a.currentInterval()) // the policy may change it: see policy.go
	defer ticker.Stop()
	a.tick(ctx) // sets the baseline at once rather than one interval late
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-ticker.C:
			a.tick(ctx)
		case d := <-a.policy.interval:
			ticker.Reset(d)
		}
	}

	a.log.Info("stopping: spooling the current interval")
	a.stopPolicy()
	a.tick(context.Background())
	if err := a.accel.close(); err != nil { // after the last tick, which reports their final interval
		a.log.Warn("could not release everything the acceleration features held", "error", err)
	}
	a.drain()
	stopForwarder()
	<-fwdDone
	a.spool.Close()
	a.writeStatus(nil, true)
	return nil
}

func build(ctx context.Context, cfg config.Config, opts Options) (*agent, error) {
	log := opts.Logger
	host, err := hostinfo.Collect(hostinfo.SourcesFor(cfg.StateDir, cfg.HostRoot))
	if err != nil {
		return nil, err
	}
	sp, err := spool.Open(cfg.SpoolDir(), cfg.Spool.MaxBytes, log)
	if err != nil {
		return nil, err
	}
	seq, err := spool.OpenSequence(cfg.SequencePath(), sp.Stats().NewestSeq)
	if err != nil {
		return nil, err
	}
	for _, warning := range cfg.Retired() {
		log.Warn(warning)
	}
	// Collectors and features first: the eBPF collectors load their programs now, and what
	// loaded or can run goes into the resource of every batch as spindle.agent.capabilities.
	// Collectors come first so the read cache can count its hits with the page-cache program.
	collectors, err := collector.Build(cfg.EnabledCollectors(collector.EnabledByDefault),
		collector.Options{ProcPath: cfg.ProcPath, SysPath: cfg.SysPath, Logger: log, EBPF: collector.EBPFOptions{
			Mode:              collector.EBPFMode(cfg.EBPF),
			PageCacheTopFiles: cfg.Collectors.PageCache.TopFiles,
			MRCWindow:         cfg.Collectors.MRC.Window,
		},
			Fragmentation: collector.FragmentationOptions{Paths: cfg.Fragmentation.Paths, Period: cfg.Fragmentation.Period,
				MaxFilesPerSecond: cfg.Fragmentation.MaxFilesPerSecond, WorstFiles: cfg.Fragmentation.WorstFiles},
			PostgreSQL: collector.PostgreSQLOptions{DSN: cfg.Databases.PostgreSQL.DSN, Databases: cfg.Databases.PostgreSQL.Databases},
		})
	if err != nil {
		return nil, err
	}
	var scanner collector.FragmentationPolicy
	var access readcache.AccessSource
	for _, c := range collectors {
		if s, ok := c.Collector.(collector.FragmentationPolicy); ok {
			scanner = s
		}
		if s, ok := c.Collector.(collector.FileAccessSource); ok && s.Measuring() {
			access = s
		}
	}
	features := newAccelFeatures(cfg, log, access)
	for _, c := range collectors {
		if s, ok := c.Collector.(collector.ReadCacheScopes); ok && features.readCache != nil {
			s.UseReadCacheScopes(features.readCache.ManagedFiles)
		}
	}
	caps := append(collector.Capabilities(collectors, cfg.WhyOff), features.capabilities()...)
	collectors = append(collectors, collector.Named{Name: collector.AccelCollectorName,
		Collector: collector.NewAccel(features.sources(), log)})
	pipeline, err := export.New(ctx, export.Settings{
		Resource: export.WithCapabilities(export.BaseResource(host, opts.Version, cfg.AgentID), collector.AvailableCapabilities(caps)),
		Spool:    sp,
		Sequence: seq,
		OnError:  func(err error) { log.Error("a measurement cannot be exported", "error", err) },
	})
	if err != nil {
		collector.NewRunner(collectors, log).Close()
		features.close()
		return nil, err
	}
	var reporters []collector.DiskRatesReporter
	for _, c := range collectors {
		if r, ok := c.Collector.(collector.DiskRatesReporter); ok {
			reporters = append(reporters, r)
		}
	}
	fs := opts.Forward
	fs.OnMark = func(mark uint64) {
		// A mark above our own numbers: our state went back (wiped state directory, restored
		// snapshot, cloned image) and the gateway drops what we number at or below it.
		if raised, err := seq.Raise(mark); err != nil {
			log.Error("raised the batch sequence above the gateway's mark but cannot save it", "mark", mark, "error", err)
		} else if raised {
			log.Warn("batch sequence was behind the gateway's high-water mark (state reset, snapshot or clone); continuing above it",
				"mark", mark)
		}
	}
	cred := credential.NewHolder(cfg.Credential, cfg.CredentialIssuedAt, cfg.CredentialExpiresAt)
	fs.Gateway, fs.Credential, fs.CredentialFunc, fs.Spool, fs.Logger = cfg.Gateway, cfg.Credential, cred.Secret, sp, log
	fs.Collector = cfg.Collector
	fs.UserAgent = "spindle-agent/" + opts.Version
	return &agent{cfg: cfg, opts: opts, log: log, spool: sp, sequence: seq, pipeline: pipeline,
		runner: collector.NewRunner(collectors, log), reporters: reporters, caps: caps,
		forwarder: forward.New(fs), cred: cred, accel: features, scanner: scanner, started: time.Now(), host: host}, nil
}

// tick runs the collectors and writes one batch covering the interval since the last tick.
func (a *agent) tick(ctx context.Context) {
	collectCtx, cancel := context.WithTimeout(ctx, a.currentInterval())
	results := a.runner.Collect(collectCtx, a.pipeline.Sink())
	cancel()

	spooled := a.spool.Stats()
	recordSpoolGauges(a.pipeline.Sink(), spooled)
	dropped := spooled.DroppedBatches
	if dropped > a.droppedSeen {
		a.pipeline.Sink().AddInt(catalogue.SpoolDroppedBatches, int64(dropped-a.droppedSeen))
	}
	seq, err := a.pipeline.Flush(context.Background()) // never cut short: the data is already read
	a.lastExportEr = ""
	switch {
	case err != nil: // the dropped count is added again to the next batch
		a.lastExportEr = err.Error()
		a.log.Error("could not write the batch to the spool; this interval is lost", "error", err,
			"hint", "check free space and permissions of "+a.cfg.StateDir)
	case seq > 0:
		a.droppedSeen = dropped
		a.lastSeq = seq
	}
	if err := a.sequence.PersistError(); (err != nil) != a.seqLagging {
		a.seqLagging = err != nil
		if a.seqLagging {
			a.log.Warn("cannot save the batch sequence; numbering continues in memory, and a crash before it is saved costs one interval",
				"error", err, "hint", "free space on the filesystem of "+a.cfg.StateDir)
		} else {
			a.log.Info("the batch sequence is saved again")
		}
	}
	a.writeStatus(results, false)
}

func (a *agent) writeStatus(results []collector.Result, stopped bool) {
	f := status.File{
		AgentVersion: a.opts.Version, PID: os.Getpid(), StartedAt: a.started, UpdatedAt: time.Now(),
		IntervalSeconds: a.currentInterval().Seconds(), Gateway: a.cfg.Gateway, AgentID: a.cfg.AgentID,
		ServerID: a.cfg.ServerID, LastBatchSeq: a.lastSeq, LastExportError: a.lastExportEr,
		Delivery: a.forwarder.Status(), Spool: a.spool.Stats(), Stopped: stopped, Capabilities: a.caps,
		Policy: a.policyStatus(),
	}
	if results != nil {
		f.LastCollection = time.Now()
		f.Collectors = status.CollectorsFrom(results)
		for _, r := range a.reporters {
			f.Disks = append(f.Disks, r.DiskRates()...)
		}
	} else if prev, err := status.Read(a.cfg.StatusPath()); err == nil {
		f.LastCollection, f.Collectors, f.Disks = prev.LastCollection, prev.Collectors, prev.Disks
	}
	if err := status.Write(a.cfg.StatusPath(), f); err != nil {
		a.log.Warn("could not write status file", "error", err)
	}
}

// drain waits until the spool is empty, delivery is failing, or the timeout passes.
func (a *agent) drain() {
	deadline := time.Now().Add(a.opts.DrainTimeout)
	for time.Now().Before(deadline) {
		if a.spool.Stats().Batches == 0 {
			return
		}
		if st := a.forwarder.Status(); st.FailedAttempts > 0 || st.Unauthenticated {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := a.spool.Stats().Batches; n > 0 {
		a.log.Info("batches stay spooled until the next start", "batches", n)
	}
}
