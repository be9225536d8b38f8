package ingest

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// TestSameResultsAsBeforeTheDecoderChange holds the gateway to what it did with every input
// before it decoded with package otlp instead of pdata: testdata/equivalence holds seed exports
// (every family, a Collector source, JSON) and, for each seed and 400 deterministic mutations of
// it, a hash of what decode, bounds, source planning and Map made of it, computed by the
// pdata-based gateway (commit 986cb6a) with SPINDLE_WRITE_EQUIVALENCE=1. Decode errors count
// as one outcome (their wording changed); every other error must read the same. The hashes
// cover the whole batch, its digest included, so a change to what the gateway makes of an
// export is recorded again the same way once reviewed: they were when batches gained the
// untimed I/O counts (an empty family for every seed, and with it a new digest), after the new
// decoder had matched every pdata outcome.
func TestSameResultsAsBeforeTheDecoderChange(t *testing.T) {
	dir := filepath.Join("testdata", "equivalence")
	writing := os.Getenv("SPINDLE_WRITE_EQUIVALENCE") == "1"
	if writing {
		writeEquivalenceSeeds(t, dir)
	}
	seeds, err := filepath.Glob(filepath.Join(dir, "*.seed"))
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no seeds in %s: %v", dir, err)
	}
	var lines []string
	outcomes := map[string]int{}
	for _, path := range seeds {
		seed, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		enc := Protobuf
		if strings.HasSuffix(strings.TrimSuffix(path, ".seed"), ".json") {
			enc = JSON
		}
		name := filepath.Base(path)
		for i, body := range mutants(seed, name) {
			result := outcome(body, enc)
			outcomes[strings.SplitN(result, ":", 2)[0]]++
			hashes := []string{outcomeHash(result)}
			if writing {
				// Which of several faults Map reports can depend on map iteration order: every
				// outcome seen in 64 runs is one the gateway may give.
				for range 63 {
					hashes = append(hashes, outcomeHash(outcome(body, enc)))
				}
				slices.Sort(hashes)
				hashes = slices.Compact(hashes)
			}
			lines = append(lines, fmt.Sprintf("%s %d %s", name, i, strings.Join(hashes, ",")))
		}
	}
	golden := filepath.Join(dir, "outcomes.txt")
	if writing {
		if err := os.WriteFile(golden, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("outcomes: %v", outcomes)
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	for scanner := bufio.NewScanner(f); scanner.Scan(); {
		want = append(want, scanner.Text())
	}
	if len(want) != len(lines) {
		t.Fatalf("%d outcomes; %s has %d", len(lines), golden, len(want))
	}
	for i := range want {
		fields, line := strings.Fields(want[i]), strings.Fields(lines[i])
		if len(fields) != 3 || fields[0] != line[0] || fields[1] != line[1] {
			t.Fatalf("%s line %d is %q; expected outcomes of %s %s", golden, i+1, want[i], line[0], line[1])
		}
		if !slices.Contains(strings.Split(fields[2], ","), line[2]) {
			var seed string
			var n int
			fmt.Sscanf(lines[i], "%s %d", &seed, &n)
			body, _ := os.ReadFile(filepath.Join(dir, seed))
			enc := Protobuf
			if strings.Contains(seed, ".json") {
				enc = JSON
			}
			t.Errorf("%s: outcome differs from before (%s); now: %.2000s", lines[i], want[i], outcome(mutants(body, seed)[n], enc))
		}
	}
}

func outcomeHash(result string) string {
	sum := sha256.Sum256([]byte(result))
	return fmt.Sprintf("%x", sum[:6])
}

// outcome is what the /v1/metrics path makes of a body, as text.
func outcome(body []byte, enc Encoding) string {
	now := time.Unix(1_800_000_000, 0)
	md, err := Decode(body, enc)
	if err != nil {
		return "decode: refused"
	}
	bounds := Bounds{MaxAge: 24 * time.Hour, MaxAhead: time.Hour, MaxTimestamps: 1000, MaxDevices: 64}
	if err := CheckBounds(md, bounds, now); err != nil {
		return "bounds: " + err.Error()
	}
	if IsSourceExport(md) {
		plan, err := PlanSource(md)
		if err != nil {
			return "plan: " + err.Error()
		}
		result, err := plan.Apply(nil)
		if err != nil {
			return "apply: " + err.Error()
		}
		return "source: " + jsonText(result) + fmt.Sprint(plan.Keys(), plan.IgnoredPoints)
	}
	request, err := Map(md)
	if err != nil {
		return "map: " + err.Error()
	}
	return "mapped: " + jsonText(request)
}

func jsonText(v any) string {
	encoded, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%+v", v)
	}
	return string(encoded)
}

// mutants are the seed and 400 variations of it: bytes overwritten, ranges zeroed or
// repeated, the body cut short. The generator is seeded by the seed's name.
func mutants(seed []byte, name string) [][]byte {
	sum := sha256.Sum256([]byte(name))
	rng := rand.New(rand.NewPCG(uint64(sum[0])<<8|uint64(sum[1]), 1))
	out := [][]byte{seed}
	for len(out) <= 400 {
		body := slices.Clone(seed)
		for range 1 + rng.IntN(3) {
			if len(body) == 0 {
				break
			}
			at := rng.IntN(len(body))
			switch rng.IntN(5) {
			case 0, 1:
				body[at] = byte(rng.IntN(256))
			case 2:
				body[at] ^= 1 << rng.IntN(8)
			case 3:
				end := min(len(body), at+1+rng.IntN(8))
				clear(body[at:end])
			case 4:
				body = body[:at]
			}
		}
		out = append(out, body)
	}
	return out
}

// writeEquivalenceSeeds writes the seed exports (with fixed times, so they are reproducible).
func writeEquivalenceSeeds(t *testing.T, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	end := time.Unix(1_800_000_000, 0).Add(-time.Minute)
	s := otlpfixture.Sample{Seq: 7, Start: end.Add(-10 * time.Second), End: end, Attributes: map[string]string{"host.name": "seed"},
		Disks: []otlpfixture.Disk{{Device: "sda", ReadOps: 10, WriteOps: 20, ReadBytes: 4096, WriteBytes: 8192, ReadMerged: 1,
			ReadSeconds: 0.01, WriteSeconds: 0.02, IOSeconds: 0.5, WeightedIOSeconds: 0.7, InProgress: 2},
			{Device: "nvme0n1", ReadOps: 1, WriteOps: 2}},
		Memory: &otlpfixture.Memory{Limit: 16 << 30, Available: 8 << 30, Free: 2 << 30, Cached: 5 << 30, Buffers: 256 << 20,
			Dirty: 1 << 20, SwapUsed: 1 << 20, SwapFree: 2 << 30}}
	agent := otlpfixture.Build(s)
	otlpfixture.AddDeep(agent, 0, s, otlpfixture.Deep{
		Latency: []otlpfixture.Latency{{Device: "sda", Operation: "read", Counts: []uint64{0, 3, 20, 4}, SumSeconds: 0.002},
			{Device: "sda", Operation: "flush", Counts: []uint64{1}, SumSeconds: 0.0001}},
		Splits:    map[string]int64{"sda": 3},
		PageCache: &[2]int64{100, 10},
		TopFiles:  map[string][2]int64{"/var/lib/db": {50, 5}},
		Databases: []otlpfixture.Database{{Name: "app", Commits: 5, Rollbacks: 1, BlocksHit: 100, BlocksRead: 7, ReadSeconds: 0.003}},
		Pressure:  map[string]float64{"memory/some": 0.001, "io/full": 0.002},
		Scans: []otlpfixture.Scan{{Root: "/data", Files: 10, Fragmented: 2, Extents: 30, Excess: 5, DurationSeconds: 1.5,
			WorstFiles: []otlpfixture.WorstFile{{Path: "/data/a", Extents: 9}}}},
		Capabilities: []string{"ebpf.block_latency", "page_cache"},
	})
	otlpfixture.AddCurves(agent, 0, s, otlpfixture.Curve{Curve: "block", Scope: "sda", SizesBytes: []int64{1 << 20, 2 << 20},
		HitRatios: []float64{0.5, 0.7}, SampleRate: 0.01, SampledAccesses: 1000, WindowSeconds: 60})
	otlpfixture.AddSpace(agent, 0, s, []otlpfixture.Filesystem{{Mountpoint: "/", Device: "sda1", Type: "ext4", Size: 100 << 30,
		Used: 40 << 30, Free: 55 << 30, Reserved: 5 << 30}}, &[2]int64{4096, 2})
	batches := int64(12)
	ratio := 0.9
	otlpfixture.AddSQLServer(agent, 0, s, otlpfixture.SQLServer{Instance: "MSSQLSERVER", Batches: &batches, HitRatio: &ratio, LifeSeconds: 300})
	source := otlpfixture.BuildHostmetrics(otlpfixture.Scrape{Start: end.Add(-time.Hour), Time: end,
		Disks: []otlpfixture.HostDisk{{Device: "sda", ReadBytes: 4096, WriteBytes: 1, ReadOps: 1, WriteOps: 1, ReadMerged: 1,
			ReadSeconds: 0.1, IOSeconds: 0.5, WeightedIOSeconds: 0.6, PendingOperations: 1}},
		Memory: &otlpfixture.HostMemory{Used: 1, Free: 1 << 20, Buffered: 2, Cached: 3, Limit: 1 << 30, Available: 1 << 29},
		Swap:   []otlpfixture.HostSwap{{Device: "/swap", Used: 1, Free: 2}, {Device: "/swap2", Used: 3, Free: 4}}})
	// A seed once written stays: recording the outcomes again must not change the inputs they
	// were first recorded for (the fixtures change with the families they build).
	write := func(name string, body []byte) {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err == nil {
			return
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("agent.pb.seed", otlpfixture.Proto(agent))
	write("agent.json.seed", otlpfixture.JSON(agent))
	write("hostmetrics.pb.seed", otlpfixture.Proto(source))
	accel := otlpfixture.Build(otlpfixture.Sample{Seq: 4, Start: s.Start, End: s.End})
	otlpfixture.AddDeep(accel, 0, s, otlpfixture.Deep{Accel: map[string]float64{
		"spindle.read_cache.budget": 1 << 30, "spindle.read_cache.resident": 1 << 20, "spindle.read_cache.misses": 8192,
		"spindle.read_cache.hits": 0, "spindle.read_cache.memory_read_latency": 0.0000012,
		"spindle.read_cache.memory_read_latency.samples": 4096, "spindle.write_opt.preallocated": 1 << 20,
		"spindle.write_opt.managed.grown": 65536, "spindle.write_opt.managed.extents_added": 1,
		"spindle.write_opt.unmanaged.grown": 65536, "spindle.write_opt.unmanaged.extents_added": 12,
	}, ManagedFiles: map[string]int64{"/var/log/app/a.log": 3, "/var/log/app/b.log": 9}})
	write("accel.pb.seed", otlpfixture.Proto(accel))
	small := otlpfixture.Build(otlpfixture.Sample{Seq: 3, Start: s.Start, End: s.End, Disks: s.Disks[:1]})
	write("small.pb.seed", otlpfixture.Proto(small))
}
