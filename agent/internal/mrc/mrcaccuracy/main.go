// Command mrcaccuracy measures how close the agent's sampled miss-ratio curves come to exact LRU
// curves, and what a curve costs in memory: the benchmark of docs/benchmarks.md ("Miss-ratio
// curves"). It runs the synthetic traces of internal/mrc/traces and, with -trace, a trace the
// agent recorded (mrcrecord: one little-endian uint64 key hash per access).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/spindle-io/spindle/agent/internal/mrc"
	"github.com/spindle-io/spindle/agent/internal/mrc/traces"
)

func main() {
	keys := flag.Int("keys", 1_000_000, "distinct keys of the synthetic traces")
	accesses := flag.Int("accesses", 10_000_000, "accesses per synthetic trace")
	rate := flag.Float64("rate", 0.01, "the sampling rate curves start at")
	seeds := flag.Int("seeds", 3, "key layouts per synthetic shape (the spread of a 1 % sample)")
	tracePath := flag.String("trace", "", "a recorded trace to evaluate too")
	flag.Parse()
	if err := run(*keys, *accesses, *rate, *seeds, *tracePath); err != nil {
		fmt.Fprintln(os.Stderr, "mrcaccuracy:", err)
		os.Exit(1)
	}
}

func run(keys, accesses int, rate float64, seeds int, tracePath string) error {
	fmt.Printf("memory per curve (MaxKeys %d): %d bytes allocated by New, %d bytes of heap measured\n",
		mrc.DefaultMaxKeys, curveBytes(), measuredHeap())
	fmt.Printf("%-22s %-6s %-10s %-10s %-12s %-10s %-10s\n", "trace", "seed", "MAE", "MAE no adj", "MAE linear", "rate", "sampled")
	shapes := []func(seed uint64) traces.Trace{
		func(seed uint64) traces.Trace { return traces.Uniform(keys, seed) },
		func(seed uint64) traces.Trace { return traces.Zipf(keys, 0.8, seed) },
		func(seed uint64) traces.Trace { return traces.Zipf(keys, 1.2, seed) },
		func(seed uint64) traces.Trace { return traces.ScanHot(keys/10, keys, 0.3, seed) },
		func(seed uint64) traces.Trace { return traces.Loop(keys / 2) },
	}
	names := []string{"uniform", "zipf 0.8", "zipf 1.2", "scan + hot set (30 %)", "loop (half the keys)"}
	for i, shape := range shapes {
		for seed := 1; seed <= seeds; seed++ {
			t := shape(uint64(seed))
			if err := report(names[i], fmt.Sprint(seed), traces.Hashes(t, accesses), t.Keys, rate); err != nil {
				return err
			}
		}
	}
	if tracePath == "" {
		return nil
	}
	hashes, distinct, err := readTrace(tracePath)
	if err != nil {
		return err
	}
	return report("recorded: "+tracePath, "-", hashes, distinct, rate)
}

func report(name, seed string, hashes []uint64, keys int, rate float64) error {
	adjusted, err := traces.Evaluate(hashes, keys, rate, mrc.DefaultMaxKeys, true)
	if err != nil {
		return err
	}
	plain, err := traces.Evaluate(hashes, keys, rate, mrc.DefaultMaxKeys, false)
	if err != nil {
		return err
	}
	fmt.Printf("%-22s %-6s %-10.4f %-10.4f %-12.4f %-10.4f %-10d\n", name, seed, adjusted.MeanAbsoluteError, plain.MeanAbsoluteError,
		mrc.MeanAbsoluteErrorLinear(adjusted.Estimate, adjusted.Exact, 100), adjusted.Estimate.SampleRate, adjusted.Estimate.SampledAccesses)
	return nil
}

func readTrace(path string) ([]uint64, int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	if len(raw)%8 != 0 {
		return nil, 0, fmt.Errorf("%s: %d bytes is not a whole number of uint64 hashes", path, len(raw))
	}
	hashes := make([]uint64, len(raw)/8)
	distinct := map[uint64]bool{}
	for i := range hashes {
		hashes[i] = binary.LittleEndian.Uint64(raw[i*8:])
		distinct[hashes[i]] = true
	}
	if len(hashes) == 0 {
		return nil, 0, fmt.Errorf("%s: %w", path, io.ErrUnexpectedEOF)
	}
	return hashes, len(distinct), nil
}

func curveBytes() int {
	e, _ := mrc.New(mrc.Settings{KeyBytes: 4096, MaxKeys: mrc.DefaultMaxKeys, Rate: mrc.DefaultRate})
	return e.Bytes()
}

// measuredHeap is the live heap one default estimator adds, as the Go runtime counts it.
func measuredHeap() uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e, _ := mrc.New(mrc.Settings{KeyBytes: 4096, MaxKeys: mrc.DefaultMaxKeys, Rate: mrc.DefaultRate})
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(e)
	return after.HeapAlloc - before.HeapAlloc
}
