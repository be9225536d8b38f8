package httpapi

import (
	"fmt"
	"net/http"
	"strings"
)

// opsCounter is one counter of GET /metrics, in the Prometheus text exposition format so any
// scraper (Prometheus, the OpenTelemetry Collector's prometheus receiver) reads it.
type opsCounter struct {
	name, help string
	value      func() int64
}

// handleOpsMetrics is GET /metrics: the gateway's own counters for operators. They are counts
// for the whole gateway process (since it started), with no tenant, server or agent in them,
// so the endpoint needs no credential; docs/configure.md says how to keep it private anyway.
func (s *server) handleOpsMetrics(w http.ResponseWriter, _ *http.Request) {
	counters := []opsCounter{
		{"spindle_gateway_batch_sequence_regressions_total",
			"Batches at or below an agent's high-water mark whose content differs from the batch written under that number (a wiped, restored or cloned agent state); not written.",
			s.recent.regressions.Load},
		{"spindle_gateway_batch_sequence_unverified_total",
			"Batches at or below an agent's high-water mark that this gateway holds no digest for, so it cannot tell a replay from a regression; not written.",
			s.recent.unverified.Load},
		{"spindle_gateway_batch_sequence_replays_total",
			"Batches resent with the same content after a lost acknowledgement; acknowledged without being written again.",
			s.recent.replays.Load},
		{"spindle_gateway_ingest_groups_total",
			"Group-commit transactions attempted: concurrent exports written together (SPINDLE_INGEST_GROUP_WINDOW, SPINDLE_INGEST_GROUP_WRITERS).",
			s.groupWrites.Groups},
		{"spindle_gateway_ingest_group_members_total",
			"Exports those transactions held; divided by spindle_gateway_ingest_groups_total it is the average group size.",
			s.groupWrites.Members},
	}
	var out strings.Builder
	for _, c := range counters {
		fmt.Fprintf(&out, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", c.name, c.help, c.name, c.name, c.value())
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(out.String()))
}
