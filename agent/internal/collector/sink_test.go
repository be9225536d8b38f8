package collector

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
)

// recordingSink keeps what collectors record, rendered one line per series for golden files.
type recordingSink struct {
	mu         sync.Mutex
	series     map[string]string
	histograms map[string]HistogramDelta // same keys as series
}

var _ Sink = (*recordingSink)(nil)

func newRecordingSink() *recordingSink {
	return &recordingSink{series: map[string]string{}, histograms: map[string]HistogramDelta{}}
}

func seriesKey(kind string, m catalogue.Metric, attrs []attribute.KeyValue) string {
	set := attribute.NewSet(attrs...)
	var parts []string
	for _, kv := range set.ToSlice() {
		parts = append(parts, fmt.Sprintf("%s=%s", kv.Key, kv.Value.String()))
	}
	return fmt.Sprintf("%s %s[%s]{%s}", kind, m.Name, m.Unit, strings.Join(parts, ","))
}

func (s *recordingSink) put(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.series[key]; dup {
		panic("series recorded twice in one tick: " + key)
	}
	s.series[key] = value
}

func (s *recordingSink) AddInt(m catalogue.IntCounter, d int64, a ...attribute.KeyValue) {
	s.put(seriesKey("counter", m.Metric, a), fmt.Sprint(d))
}
func (s *recordingSink) AddFloat(m catalogue.FloatCounter, d float64, a ...attribute.KeyValue) {
	s.put(seriesKey("counter", m.Metric, a), fmt.Sprint(d))
}
func (s *recordingSink) SetInt(m catalogue.IntGauge, v int64, a ...attribute.KeyValue) {
	s.put(seriesKey("gauge", m.Metric, a), fmt.Sprint(v))
}
func (s *recordingSink) SetFloat(m catalogue.FloatGauge, v float64, a ...attribute.KeyValue) {
	s.put(seriesKey("gauge", m.Metric, a), fmt.Sprint(v))
}

func (s *recordingSink) AddHistogram(m catalogue.Histogram, d HistogramDelta, a ...attribute.KeyValue) {
	key := seriesKey("histogram", m.Metric, a)
	s.put(key, fmt.Sprintf("%v sum=%g", d.BucketCounts, d.Sum))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histograms[key] = d
}

func (s *recordingSink) render() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := make([]string, 0, len(s.series))
	for k, v := range s.series {
		lines = append(lines, k+" "+v)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

// checkGolden compares got with testdata/<name>; SPINDLE_UPDATE_GOLDEN=1 rewrites the file
// (then review the diff by hand: a golden file is only as right as its last review).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("SPINDLE_UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run with SPINDLE_UPDATE_GOLDEN=1 to create it): %v", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
