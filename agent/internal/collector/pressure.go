package collector

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

func init() {
	register("pressure", true, newPressureCollector)
	registerCapability("pressure", "psi.pressure")
}

// pressureResources are the PSI files read, in <proc>/pressure.
var pressureResources = []string{"memory", "io"}

// stallKey names one PSI line: a resource and the scope some or full.
type stallKey struct{ resource, scope string }

// parsePressure reads the total= counters (microseconds) of a PSI file:
//
//	some avg10=0.00 avg60=0.00 avg300=0.00 total=12345
//	full avg10=0.00 avg60=0.00 avg300=0.00 total=6789
func parsePressure(resource string, r io.Reader) (map[stallKey]uint64, error) {
	totals := map[stallKey]uint64{}
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		fields := strings.Fields(scanner.Text())
		if len(fields) == 0 || (fields[0] != "some" && fields[0] != "full") {
			continue
		}
		for _, f := range fields[1:] {
			value, found := strings.CutPrefix(f, "total=")
			if !found {
				continue
			}
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("pressure/%s %s total: %w", resource, fields[0], err)
			}
			totals[stallKey{resource, fields[0]}] = n
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read pressure/%s: %w", resource, err)
	}
	if len(totals) == 0 {
		return nil, fmt.Errorf("pressure/%s has no some/full total= line", resource)
	}
	return totals, nil
}

// pressureCollector turns the PSI stall-time counters into deltas, in seconds.
type pressureCollector struct {
	read      func(resource string) (map[stallKey]uint64, error)
	prev      map[stallKey]uint64
	available error // nil when PSI is readable; why not otherwise
}

var _ CapabilityReporter = (*pressureCollector)(nil)

func newPressureCollector(opts Options) (Collector, error) {
	c := &pressureCollector{read: pressureSource(opts)}
	for _, resource := range pressureResources {
		if _, err := c.read(resource); errors.Is(err, ErrUnsupported) {
			c.available = err
			break
		}
	}
	return c, nil
}

func (c *pressureCollector) Capability() Capability {
	if c.available != nil {
		return Capability{Name: "psi.pressure", Reason: c.available.Error()}
	}
	return Capability{Name: "psi.pressure", Available: true}
}

func (c *pressureCollector) Collect(_ context.Context, sink Sink) error {
	cur := map[stallKey]uint64{}
	for _, resource := range pressureResources {
		totals, err := c.read(resource)
		if err != nil {
			return err
		}
		for k, v := range totals {
			cur[k] = v
		}
	}
	first := c.prev == nil
	for k, v := range cur {
		before, seen := c.prev[k]
		if first || !seen || v < before { // first tick, or a counter that went back: baseline only
			continue
		}
		sink.AddFloat(catalogue.PressureStallTime, float64(v-before)/1e6,
			attribute.String(catalogue.AttrPressureResource, k.resource),
			attribute.String(catalogue.AttrPressureScope, k.scope))
	}
	c.prev = cur
	return nil
}

func (c *pressureCollector) Close() error { return nil }
