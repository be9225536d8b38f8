// Command mrcaccuracy measures how close the agent's sampled miss-ratio curves come to exact LRU
// curves, and what a curve costs in memory: the benchmark of docs/benchmarks.md ("Miss-ratio
// curves"). It runs the synthetic traces of internal/mrc/traces and, with -trace, a trace the
// agent recorded (mrcrecord: the device, inode and page index of every access, three
// little-endian uint64 each). Each trace is sampled -salts times with independent hashes
// (traces.Hashes; salt 0 is the agent's own), because one 1 %
// sample says little about the error the next host will see: the table gives the mean and the
// worst over the samples, and the signed error at the smallest sizes tells bias from chance.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/mrc"
	"github.com/spindle-io/spindle/agent/internal/mrc/traces"
)

func main() {
	keys := flag.Int("keys", 1_000_000, "distinct keys of the synthetic traces")
	accesses := flag.Int("accesses", 10_000_000, "accesses per synthetic trace")
	rate := flag.Float64("rate", 0.01, "the sampling rate curves start at")
	seeds := flag.Int("seeds", 3, "key layouts per synthetic shape")
	salts := flag.Int("salts", 8, "independent spatial samples (hash salts) per trace")
	tracePath := flag.String("trace", "", "a recorded trace to evaluate too")
	only := flag.String("only", "", "run only the synthetic shapes whose name contains this (\"-\": none)")
	flag.Parse()
	if *salts < 1 {
		fmt.Fprintln(os.Stderr, "mrcaccuracy: -salts must be at least 1")
		os.Exit(2)
	}
	if err := run(*keys, *accesses, *rate, *seeds, *salts, *tracePath, *only); err != nil {
		fmt.Fprintln(os.Stderr, "mrcaccuracy:", err)
		os.Exit(1)
	}
}

func run(keys, accesses int, rate float64, seeds, salts int, tracePath, only string) error {
	fmt.Printf("memory per curve (MaxKeys %d): %d bytes allocated by New, %d bytes of heap measured\n",
		mrc.DefaultMaxKeys, curveBytes(), measuredHeap())
	fmt.Printf("%d samples per trace; MAE mean / worst; small sizes: signed error from 1/rate to 8/rate keys, mean ± sd over the samples\n", salts)
	fmt.Printf("%-22s %-4s %-15s %-15s %-15s %-17s %-8s %s\n", "trace", "seed", "MAE log", "MAE linear", "MAE log no adj", "small sizes", "rate", "sampled")
	shapes := []func(seed uint64) traces.Trace{
		func(seed uint64) traces.Trace { return traces.Uniform(keys, seed) },
		func(seed uint64) traces.Trace { return traces.Zipf(keys, 0.8, seed) },
		func(seed uint64) traces.Trace { return traces.Zipf(keys, 1.2, seed) },
		func(seed uint64) traces.Trace { return traces.ScanHot(keys/10, keys, 0.3, seed) },
		func(seed uint64) traces.Trace { return traces.Loop(keys / 2) },
	}
	names := []string{"uniform", "zipf 0.8", "zipf 1.2", "scan + hot set (30 %)", "loop (half the keys)"}
	for i, shape := range shapes {
		if !strings.Contains(names[i], only) {
			continue
		}
		for seed := 1; seed <= seeds; seed++ {
			t := shape(uint64(seed))
			if err := report(names[i], fmt.Sprint(seed), traces.Keys(t, accesses), t.Keys, rate, salts); err != nil {
				return err
			}
		}
	}
	if tracePath == "" {
		return nil
	}
	accessKeys, distinct, err := readTrace(tracePath)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d accesses, %d distinct keys\n", tracePath, len(accessKeys), distinct)
	return report("recorded", "-", accessKeys, distinct, rate, salts)
}

// stats is the mean, worst and standard deviation of one measure over the samples.
type stats []float64

func (s stats) mean() float64 {
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	return sum / float64(len(s))
}

func (s stats) max() float64 {
	m := math.Inf(-1)
	for _, v := range s {
		m = math.Max(m, v)
	}
	return m
}

func (s stats) min() float64 {
	m := math.Inf(1)
	for _, v := range s {
		m = math.Min(m, v)
	}
	return m
}

func (s stats) sd() float64 {
	m, sum := s.mean(), 0.0
	for _, v := range s {
		sum += (v - m) * (v - m)
	}
	return math.Sqrt(sum / float64(len(s)))
}

func report(name, seed string, accessKeys []traces.Key, keys int, rate float64, salts int) error {
	exact, err := traces.Exact(traces.Hashes(accessKeys, 0), keys)
	if err != nil {
		return err
	}
	var logMAE, linMAE, plainMAE, small, sampled stats
	endRate := 0.0
	for salt := range uint64(salts) {
		sample := traces.Hashes(accessKeys, salt)
		adjusted, err := traces.Sampled(sample, rate, mrc.DefaultMaxKeys, true)
		if err != nil {
			return err
		}
		plain, err := traces.Sampled(sample, rate, mrc.DefaultMaxKeys, false)
		if err != nil {
			return err
		}
		logMAE = append(logMAE, mrc.MeanAbsoluteError(adjusted, exact))
		linMAE = append(linMAE, mrc.MeanAbsoluteErrorLinear(adjusted, exact, 100))
		plainMAE = append(plainMAE, mrc.MeanAbsoluteError(plain, exact))
		small = append(small, signedError(adjusted, exact, adjusted.SizesBytes[0], 8*adjusted.SizesBytes[0]))
		sampled = append(sampled, float64(adjusted.SampledAccesses))
		endRate = math.Max(endRate, adjusted.SampleRate)
	}
	fmt.Printf("%-22s %-4s %-15s %-15s %-15s %+.4f ± %.4f %-8.4f %.0f-%.0f\n", name, seed,
		fmt.Sprintf("%.4f / %.4f", logMAE.mean(), logMAE.max()), fmt.Sprintf("%.4f / %.4f", linMAE.mean(), linMAE.max()),
		fmt.Sprintf("%.4f / %.4f", plainMAE.mean(), plainMAE.max()), small.mean(), small.sd(), endRate, sampled.min(), sampled.max())
	return nil
}

// signedError is the mean of estimate − exact over the exact curve's sizes in [from, to).
func signedError(estimate, exact mrc.Curve, from, to uint64) float64 {
	sum, n := 0.0, 0
	for i, size := range exact.SizesBytes {
		if size < from || size >= to {
			continue
		}
		if v, ok := estimate.At(size); ok {
			sum += v - exact.HitRatios[i]
			n++
		}
	}
	return sum / float64(max(n, 1))
}

// traceRecordBytes is one access of a recorded trace: device, inode, page index.
const traceRecordBytes = 24

func readTrace(path string) ([]traces.Key, int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	if len(raw)%traceRecordBytes != 0 {
		return nil, 0, fmt.Errorf("%s: %d bytes is not a whole number of %d-byte access records (device, inode, page index): record it again with this tree's mrcrecord", path, len(raw), traceRecordBytes)
	}
	accessKeys := make([]traces.Key, len(raw)/traceRecordBytes)
	distinct := map[traces.Key]bool{}
	for i := range accessKeys {
		r := raw[i*traceRecordBytes:]
		accessKeys[i] = traces.Key{Dev: uint32(binary.LittleEndian.Uint64(r)), Ino: binary.LittleEndian.Uint64(r[8:]), Index: binary.LittleEndian.Uint64(r[16:])}
		distinct[accessKeys[i]] = true
	}
	if len(accessKeys) == 0 {
		return nil, 0, fmt.Errorf("%s: %w", path, io.ErrUnexpectedEOF)
	}
	return accessKeys, len(distinct), nil
}

func curveBytes() int {
	e, _ := mrc.New(mrc.Settings{KeyBytes: 4096, MaxKeys: mrc.DefaultMaxKeys, Rate: mrc.DefaultRate})
	return e.MaxBytes()
}

// measuredHeap is the live heap one default estimator adds at its bound (its sample full), as
// the Go runtime counts it.
func measuredHeap() uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e, _ := mrc.New(mrc.Settings{KeyBytes: 4096, MaxKeys: mrc.DefaultMaxKeys, Rate: 1})
	for k := range uint64(2 * mrc.DefaultMaxKeys) {
		e.Access(mrc.PageKeyHash(1, 1, k))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(e)
	return after.HeapAlloc - before.HeapAlloc
}
