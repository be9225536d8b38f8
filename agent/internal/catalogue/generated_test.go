package catalogue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// TestGeneratedFromCurrentSource fails when packages/domain/metrics/catalogue.json changed and
// metrics_gen.go was not regenerated, or when metrics_gen.go was edited by hand.
func TestGeneratedFromCurrentSource(t *testing.T) {
	source, err := os.ReadFile("../../../packages/domain/metrics/catalogue.json")
	if err != nil {
		t.Skipf("catalogue.json not found (module built outside the monorepo): %v", err)
	}
	sum := sha256.Sum256(source)
	if got := hex.EncodeToString(sum[:]); got != SourceSHA256 {
		t.Fatalf("metrics_gen.go is stale (made from %s, catalogue.json is %s): run node packages/domain/scripts/generate-catalogue.mjs", SourceSHA256, got)
	}
	var parsed struct {
		Metrics []struct {
			Name, Type, ValueType, Unit, Description string
			Bounds                                   []float64
		} `json:"metrics"`
	}
	if err := json.Unmarshal(source, &parsed); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]Metric{}
	add := func(kind string, m Metric) { kinds[kind+" "+m.Name] = m }
	for _, m := range IntCounters {
		add("sum int", m.Metric)
	}
	for _, m := range FloatCounters {
		add("sum double", m.Metric)
	}
	for _, m := range IntGauges {
		add("gauge int", m.Metric)
	}
	for _, m := range FloatGauges {
		add("gauge double", m.Metric)
	}
	bounds := map[string][]float64{}
	for _, m := range Histograms {
		add("histogram double", m.Metric)
		bounds[m.Name] = m.Bounds
	}
	if len(kinds) != len(parsed.Metrics) {
		t.Errorf("the instrument lists hold %d metrics, catalogue.json %d", len(kinds), len(parsed.Metrics))
	}
	for _, want := range parsed.Metrics {
		got, ok := kinds[want.Type+" "+want.ValueType+" "+want.Name]
		if !ok {
			t.Errorf("%s (%s, %s) is not in the instrument list of its kind", want.Name, want.Type, want.ValueType)
			continue
		}
		if got != (Metric{want.Name, want.Unit, want.Description}) {
			t.Errorf("%s: generated %+v differs from catalogue.json", want.Name, got)
		}
		if want.Type == "histogram" && !slices.Equal(bounds[want.Name], want.Bounds) {
			t.Errorf("%s: bounds %v, catalogue.json %v", want.Name, bounds[want.Name], want.Bounds)
		}
	}
}

func TestLatencyBoundsMatchTheKernelSlots(t *testing.T) {
	if len(DiskIOLatency.Bounds)+1 != LatencyBucketCount {
		t.Fatalf("%d bounds make %d buckets; the eBPF program has %d slots", len(DiskIOLatency.Bounds), len(DiskIOLatency.Bounds)+1, LatencyBucketCount)
	}
	for i, b := range DiskIOLatency.Bounds {
		if want := float64(uint64(1)<<i) / 1e6; b != want {
			t.Errorf("bound %d is %v, want 2^%d µs = %v s", i, b, i, want)
		}
	}
}
