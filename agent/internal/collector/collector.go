// Package collector samples the host, node_exporter style: one collector per concern, each
// registered once with a name and an enabled-by-default flag, all run concurrently each tick.
//
// A collector reads /proc, /sys or syscalls (never a shell command) and records into a Sink.
// The data source is split by file suffix (diskstats_linux.go); on other systems the
// collector returns ErrUnsupported, which the agent reports as a capability, never a crash.
package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

// ErrUnsupported means the collector cannot run on this system (OS, kernel or privileges).
var ErrUnsupported = errors.New("not supported on this system")

// ErrNoData means the collector ran but had nothing to record this interval.
var ErrNoData = errors.New("no data")

// Sink receives measurements. Implementations must be safe for concurrent use: collectors
// record from their own goroutines.
type Sink interface {
	AddInt(m catalogue.IntCounter, delta int64, attrs ...attribute.KeyValue)
	AddFloat(m catalogue.FloatCounter, delta float64, attrs ...attribute.KeyValue)
	SetInt(m catalogue.IntGauge, value int64, attrs ...attribute.KeyValue)
	SetFloat(m catalogue.FloatGauge, value float64, attrs ...attribute.KeyValue)
	// AddHistogram adds the interval's bucket counts (len(m.Bounds)+1 of them) and sum.
	AddHistogram(m catalogue.Histogram, delta HistogramDelta, attrs ...attribute.KeyValue)
}

// HistogramDelta is what a histogram gained over one interval.
type HistogramDelta struct {
	BucketCounts []uint64 // one per bucket of the catalogue entry
	Sum          float64  // sum of the values, in the metric's unit
}

// Collector samples one concern. Collect is called once per tick, never concurrently with
// itself; it records counters as deltas since its previous call. Close releases resources.
type Collector interface {
	Collect(ctx context.Context, sink Sink) error
	Close() error
}

// Options are what every collector may need from the agent's configuration.
type Options struct {
	ProcPath string // "/proc", or a fixture tree in tests
	SysPath  string // "/sys", or a fixture tree in tests
	Logger   *slog.Logger
	EBPF     EBPFOptions // the eBPF collectors' settings

	Fragmentation FragmentationOptions // the FIEMAP scanner's settings
	PostgreSQL    PostgreSQLOptions    // pgstats' connection; fragmentation asks it for data_directory
}

type factory func(Options) (Collector, error)

type registration struct {
	enabledByDefault bool
	build            factory
}

var registry = map[string]registration{}

// register is called from each collector's init; a duplicate name is a programming error.
func register(name string, enabledByDefault bool, build factory) {
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("collector %q registered twice", name))
	}
	registry[name] = registration{enabledByDefault: enabledByDefault, build: build}
}

// Names lists every registered collector, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// EnabledByDefault reports whether the named collector runs when the config says nothing.
func EnabledByDefault(name string) bool { return registry[name].enabledByDefault }

// Named is a built collector with its registered name.
type Named struct {
	Name string
	Collector
}

// Build constructs the collectors whose names are in enabled, in name order.
func Build(enabled []string, opts Options) ([]Named, error) {
	// Every program is loaded when Build returns, or none will be: the kernel types the loads
	// shared (bpf.KernelTypes) go, on the error path too.
	defer func() {
		bpf.ReleaseKernelTypes()
		debug.FreeOSMemory()
	}()
	var built []Named
	for _, name := range Names() {
		if !slices.Contains(enabled, name) {
			continue
		}
		c, err := registry[name].build(opts)
		if err != nil {
			return nil, fmt.Errorf("collector %s: %w", name, err)
		}
		built = append(built, Named{Name: name, Collector: c})
		// Hand back what building it left (an eBPF collector's program load, its ELF and
		// relocations) before the next one builds, so the peak RSS holds one load's garbage at
		// most.
		debug.FreeOSMemory()
	}
	for _, name := range enabled {
		if _, ok := registry[name]; !ok {
			return nil, fmt.Errorf("unknown collector %q (known: %v)", name, Names())
		}
	}
	return built, nil
}

func deviceAttr(device string) attribute.KeyValue {
	return attribute.String(catalogue.AttrDevice, device)
}
