package agent

import (
	"log/slog"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/spool"
)

// gaugeSink keeps the integer gauges recorded into it, by metric name.
type gaugeSink struct{ ints map[string]int64 }

func (s *gaugeSink) AddInt(catalogue.IntCounter, int64, ...attribute.KeyValue)       {}
func (s *gaugeSink) AddFloat(catalogue.FloatCounter, float64, ...attribute.KeyValue) {}
func (s *gaugeSink) SetFloat(catalogue.FloatGauge, float64, ...attribute.KeyValue)   {}
func (s *gaugeSink) AddHistogram(catalogue.Histogram, collector.HistogramDelta, ...attribute.KeyValue) {
}
func (s *gaugeSink) SetInt(m catalogue.IntGauge, v int64, _ ...attribute.KeyValue) {
	s.ints[m.Name] = v
}

// TestSpoolGaugesFollowTheSpool: the gauges a batch carries are the real spool's backlog.
func TestSpoolGaugesFollowTheSpool(t *testing.T) {
	sp, err := spool.Open(filepath.Join(t.TempDir(), "spool"), 1<<20, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for seq := uint64(1); seq <= 3; seq++ {
		if err := sp.Append(spool.Batch{Seq: seq, Body: make([]byte, 100)}); err != nil {
			t.Fatal(err)
		}
	}
	sink := &gaugeSink{ints: map[string]int64{}}
	st := sp.Stats()
	recordSpoolGauges(sink, st)
	if sink.ints["spindle.agent.spool.batches"] != 3 || sink.ints["spindle.agent.spool.size"] < 300 || sink.ints["spindle.agent.spool.size"] != st.Bytes {
		t.Errorf("gauges %v, want 3 batches and the spool's %d bytes (at least 300)", sink.ints, st.Bytes)
	}
	if err := sp.Remove(1); err != nil {
		t.Fatal(err)
	}
	recordSpoolGauges(sink, sp.Stats())
	if sink.ints["spindle.agent.spool.batches"] != 2 {
		t.Errorf("after an acknowledgement: %v, want 2 batches", sink.ints)
	}
}
