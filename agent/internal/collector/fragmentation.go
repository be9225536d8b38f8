package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/dbdetect"
	"github.com/spindle-io/spindle/agent/internal/fragscan"
)

func init() {
	register("fragmentation", true, newFragmentationCollector)
	registerCapability("fragmentation", "fiemap.fragmentation")
}

// FragmentationOptions configure the FIEMAP scanner.
type FragmentationOptions struct {
	Paths             []string      // scanned besides the detected database directories
	Period            time.Duration // from the start of one scan to the start of the next
	MaxFilesPerSecond int
	WorstFiles        int // per root
	// SearchRoot is where database directories are looked for: "/" (the default), the host's
	// root mounted into a container, or a fixture tree in tests.
	SearchRoot string
	// NoDetection scans only Paths (tests).
	NoDetection bool
}

// fragmentationCollector scans in the background, one pass over every root per period, and
// reports the last complete pass every tick: a scan of a large data directory at a gentle rate
// takes minutes, far longer than a tick.
type fragmentationCollector struct {
	opts   FragmentationOptions
	askPG  func(context.Context) (string, error) // nil without a PostgreSQL connection
	logger *slog.Logger

	mu      sync.Mutex
	results []fragscan.Result // the last complete scan of each root
	scanErr error             // what went wrong in the last pass (a root that could not be scanned)
	passes  int
	nothing bool // the last pass found nothing to scan
	// What the policy in force adds (fragmentation_policy.go), read by each pass.
	policyPaths  []string
	policyPeriod time.Duration // 0: the period of agent.yaml
	rescanNow    bool          // the policy added a root: scan at once rather than at the period
	wake         chan struct{} // buffered 1: the policy changed the roots or the period

	stop context.CancelFunc
	done chan struct{}
}

var _ CapabilityReporter = (*fragmentationCollector)(nil)

func newFragmentation(opts Options) *fragmentationCollector {
	c := &fragmentationCollector{opts: opts.Fragmentation, logger: opts.Logger, wake: make(chan struct{}, 1)}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.opts.SearchRoot == "" {
		c.opts.SearchRoot = "/"
	}
	if c.opts.Period <= 0 {
		c.opts.Period = time.Hour
	}
	if c.opts.MaxFilesPerSecond <= 0 {
		c.opts.MaxFilesPerSecond = 2000
	}
	if opts.PostgreSQL.DSN != "" {
		c.askPG = dbdetect.AskPostgreSQL(opts.PostgreSQL.DSN, pgConnectTimeout)
	}
	return c
}

// start runs the passes until Close.
func (c *fragmentationCollector) start() {
	ctx, cancel := context.WithCancel(context.Background())
	c.stop, c.done = cancel, make(chan struct{})
	go func() {
		defer close(c.done)
		for {
			began := time.Now()
			c.pass(ctx)
			if !c.waitNextPass(ctx, began) {
				return
			}
		}
	}()
}

// pass finds the roots afresh (a database installed since the last pass is picked up) and
// scans them.
func (c *fragmentationCollector) pass(ctx context.Context) {
	roots, rootErr := c.roots(ctx)
	var results []fragscan.Result
	var scanErr error
	if len(roots) > 0 {
		results, scanErr = fragscan.Scan(ctx, roots, fragscan.Settings{
			MaxFilesPerSecond: c.opts.MaxFilesPerSecond, WorstFiles: c.opts.WorstFiles})
	}
	if ctx.Err() != nil {
		return // closing: an interrupted pass is not a complete one
	}
	for _, r := range results {
		c.logger.Debug("fragmentation scan done", "root", r.Root, "files", r.Files,
			"fragmented_files", r.FragmentedFiles, "duration", r.Duration)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results, c.scanErr, c.nothing = results, errors.Join(rootErr, scanErr), len(roots) == 0
	c.passes++
}

// roots are the configured paths (a symlink given as a path is resolved once; nothing below
// it is followed) and the detected database directories, without duplicates.
func (c *fragmentationCollector) roots(ctx context.Context) ([]string, error) {
	var roots []string
	var errs []error
	seen := map[string]bool{}
	add := func(path string) {
		if !seen[path] {
			seen[path] = true
			roots = append(roots, path)
		}
	}
	c.mu.Lock()
	policyPaths := c.policyPaths
	c.rescanNow = false // this pass scans them
	c.mu.Unlock()
	for _, configured := range []struct {
		setting string
		paths   []string
	}{{"fragmentation.paths", c.opts.Paths}, {"telemetry.fragmentationScan.paths of the policy", policyPaths}} {
		for _, p := range configured.paths {
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", configured.setting, err))
				continue
			}
			add(resolved)
		}
	}
	if !c.opts.NoDetection {
		dirs, err := dbdetect.Find(ctx, dbdetect.Sources{Root: c.opts.SearchRoot,
			PostgreSQLDataDirectory: c.askPG, Registry: dbdetect.HostRegistry()})
		if err != nil {
			c.logger.Debug("database directory detection", "problem", err)
		}
		for _, d := range dirs {
			add(d.Path)
		}
	}
	return roots, errors.Join(errs...)
}

func (c *fragmentationCollector) Collect(_ context.Context, sink Sink) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.passes == 0 {
		return fmt.Errorf("%w: the first fragmentation scan is still running", ErrNoData)
	}
	if c.nothing && c.scanErr == nil {
		return fmt.Errorf("%w: nothing to scan (no fragmentation.paths in agent.yaml or telemetry.fragmentationScan.paths in the policy, and no PostgreSQL, MySQL, SQL Server or Exchange directory found)", ErrNoData)
	}
	for _, r := range c.results {
		root := attribute.String(catalogue.AttrScanRoot, r.Root)
		sink.SetInt(catalogue.FragmentationFiles, r.Files, root)
		sink.SetInt(catalogue.FragmentationFragmentedFiles, r.FragmentedFiles, root)
		sink.SetInt(catalogue.FragmentationExtents, r.Extents, root)
		sink.SetInt(catalogue.FragmentationExcessExtents, r.ExcessExtents, root)
		sink.SetInt(catalogue.FragmentationUnsupportedFiles, r.UnsupportedFiles, root)
		sink.SetFloat(catalogue.FragmentationScanDuration, r.Duration.Seconds(), root)
		for _, f := range r.Worst {
			sink.SetInt(catalogue.FragmentationFileExtents, int64(f.Extents), root,
				attribute.String(catalogue.AttrFilePath, f.Path), attribute.Int64(catalogue.AttrFileSize, f.SizeBytes))
		}
	}
	return c.scanErr
}

// Capability is missing only where FIEMAP cannot work; "nothing to scan" is a state that a
// database installed later changes, reported by Collect.
func (c *fragmentationCollector) Capability() Capability {
	return Capability{Name: "fiemap.fragmentation", Available: true}
}

func (c *fragmentationCollector) Close() error {
	if c.stop != nil {
		c.stop()
		<-c.done
	}
	return nil
}
