package collector

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

func init() { register("meminfo", true, newMeminfoCollector) }

// parseMeminfo returns /proc/meminfo as bytes by field name ("kB" in the file means KiB).
func parseMeminfo(r io.Reader) (map[string]uint64, error) {
	values := map[string]uint64{}
	scanner := bufio.NewScanner(r)
	for scanner.Scan() {
		name, rest, found := strings.Cut(scanner.Text(), ":")
		if !found {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("meminfo %s: %w", name, err)
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n *= 1024
		}
		values[name] = n
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("read meminfo: %w", err)
	}
	return values, nil
}

// memoryBytes are the fields docs/metrics.md stores in the memory table.
type memoryBytes struct {
	Total, Available, Free, Cached, Buffers, Dirty, SwapTotal, SwapFree uint64

	// Windows has no buffer cache apart from its file cache, and its page files are not swap
	// in Linux's sense: neither is sent there (not measured, never 0).
	NoBuffers, NoSwap bool
}

func memoryFromMeminfo(v map[string]uint64) (memoryBytes, error) {
	var missing []string
	get := func(name string) uint64 {
		n, ok := v[name]
		if !ok {
			missing = append(missing, name)
		}
		return n
	}
	m := memoryBytes{
		Total: get("MemTotal"), Free: get("MemFree"), Cached: get("Cached"), Buffers: get("Buffers"),
		Dirty: get("Dirty"), SwapTotal: get("SwapTotal"), SwapFree: get("SwapFree"),
	}
	if len(missing) > 0 {
		return memoryBytes{}, fmt.Errorf("meminfo lacks %s", strings.Join(missing, ", "))
	}
	if avail, ok := v["MemAvailable"]; ok {
		m.Available = avail
	} else {
		// Kernels before 3.14 have no MemAvailable; free + reclaimable caches is the
		// estimate tools like free(1) used before the kernel provided one.
		m.Available = m.Free + m.Buffers + m.Cached
	}
	return m, nil
}

type meminfoCollector struct {
	read func() (memoryBytes, error) // meminfo_linux.go, meminfo_windows.go
}

func newMeminfoCollector(opts Options) (Collector, error) {
	return &meminfoCollector{read: meminfoSource(opts)}, nil
}

func (c *meminfoCollector) Collect(_ context.Context, sink Sink) error {
	m, err := c.read()
	if err != nil {
		return err
	}
	state := func(key, value string) attribute.KeyValue { return attribute.String(key, value) }
	sink.SetInt(catalogue.MemoryLimit, int64(m.Total))
	sink.SetInt(catalogue.MemoryAvailable, int64(m.Available))
	sink.SetInt(catalogue.MemoryUsage, int64(m.Free), state(catalogue.AttrMemoryState, "free"))
	sink.SetInt(catalogue.MemoryUsage, int64(m.Cached), state(catalogue.AttrMemoryState, "cached"))
	if !m.NoBuffers {
		sink.SetInt(catalogue.MemoryUsage, int64(m.Buffers), state(catalogue.AttrMemoryState, "buffers"))
	}
	sink.SetInt(catalogue.MemoryDirty, int64(m.Dirty))
	if m.NoSwap {
		return nil
	}
	swapUsed := int64(0)
	if m.SwapTotal > m.SwapFree {
		swapUsed = int64(m.SwapTotal - m.SwapFree)
	}
	sink.SetInt(catalogue.PagingUsage, swapUsed, state(catalogue.AttrPagingState, "used"))
	sink.SetInt(catalogue.PagingUsage, int64(m.SwapFree), state(catalogue.AttrPagingState, "free"))
	return nil
}

func (c *meminfoCollector) Close() error { return nil }
