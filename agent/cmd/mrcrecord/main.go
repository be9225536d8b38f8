//go:build linux

// Command mrcrecord records the host's page-cache access stream as the agent's kernel program
// sees it, for the benchmarks of docs/benchmarks.md: at -rate 1 (every access) the trace the
// accuracy benchmark replays, the key of every access in arrival order (device, inode, page
// index: three little-endian uint64, so the benchmark can hash it with any salt); at
// -rate 0.01 the agent's own sampling, to measure its in-kernel cost. Run as root while a
// workload runs; it stops after -duration and reports what the kernel saw and lost.
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bpf/mrcsample"
)

func main() {
	out := flag.String("out", "pagecache.trace", "where to write the trace")
	duration := flag.Duration("duration", time.Minute, "how long to record")
	rate := flag.Float64("rate", 1, "the page-cache sampling rate, (0, 1]")
	flag.Parse()
	if !(*rate > 0 && *rate <= 1) {
		fmt.Fprintln(os.Stderr, "mrcrecord: -rate must be in (0, 1]")
		os.Exit(2)
	}
	if err := record(*out, *duration, *rate); err != nil {
		fmt.Fprintln(os.Stderr, "mrcrecord:", err)
		os.Exit(1)
	}
}

func record(path string, duration time.Duration, rate float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var mu sync.Mutex
	var n uint64
	var buf [24]byte
	p, err := mrcsample.Load(mrcsample.Settings{Handle: func(s mrcsample.Sample) {
		if s.Stream != mrcsample.PageCache {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		binary.LittleEndian.PutUint64(buf[:], uint64(s.Dev))
		binary.LittleEndian.PutUint64(buf[8:], s.Inode)
		binary.LittleEndian.PutUint64(buf[16:], s.Index)
		w.Write(buf[:])
		n++
	}})
	if err != nil {
		return err
	}
	start, err := p.Counts()
	if err != nil {
		p.Close()
		return err
	}
	threshold := uint64(math.MaxUint64)
	if rate < 1 {
		threshold = uint64(rate * (1 << 64))
	}
	for _, stream := range []mrcsample.Stream{mrcsample.PageCache, mrcsample.Block} {
		if err := p.SetThreshold(stream, threshold); err != nil {
			p.Close()
			return err
		}
	}
	time.Sleep(duration)
	end, err := p.Counts()
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("recorded %d page-cache accesses; the kernel saw %d page-cache and %d block accesses and lost %d samples\n", n,
		end.Accesses[mrcsample.PageCache]-start.Accesses[mrcsample.PageCache], end.Accesses[mrcsample.Block]-start.Accesses[mrcsample.Block],
		end.Lost[mrcsample.PageCache]+end.Lost[mrcsample.Block]-start.Lost[mrcsample.PageCache]-start.Lost[mrcsample.Block])
	return w.Flush()
}
