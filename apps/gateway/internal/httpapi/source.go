package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
)

// writeSourceExport writes an export of an OpenTelemetry Collector used as a source (no
// spindle.batch.seq; docs/agent-protocol.md, "OpenTelemetry Collector as a source"): its
// cumulative counters become deltas against the series' stored last points, in the transaction
// that writes the rows. Such an export is written at least once, and a point the Collector sends
// again is dropped by its series and time, so nothing is stored twice.
func (s *server) writeSourceExport(ctx context.Context, w http.ResponseWriter, r *http.Request, log *slog.Logger,
	agent store.Agent, metrics *otlp.Metrics, encoding ingest.Encoding) {
	plan, err := ingest.PlanSource(metrics)
	if err != nil {
		log.Warn("export refused", "error", err)
		writeError(w, http.StatusBadRequest, reasonMalformed, "the batch was rejected and nothing was written: "+err.Error())
		return
	}
	var stats ingest.SourceStats
	result, err := s.store.WriteSource(ctx, agent, plan.Keys(),
		func(last map[string]telemetry.SeriesPoint) (telemetry.Batch, []telemetry.SeriesPoint, error) {
			applied, err := plan.Apply(last)
			stats = applied.Stats
			return applied.Batch, applied.Series, err
		})
	if store.IsInvalidSource(err) {
		log.Warn("export refused", "error", err)
		writeError(w, http.StatusBadRequest, reasonMalformed, "the batch was rejected and nothing was written: "+err.Error())
		return
	}
	if err != nil {
		s.writeAuthError(w, r, err)
		return
	}
	log.Debug("collector export written", "disk_io_rows", result.DiskIORows, "memory_rows", result.MemoryRows,
		"deltas", stats.Deltas, "baselines", stats.Baselines, "restarts", stats.Restarts, "duplicates", stats.Duplicates,
		"ignored_points", plan.IgnoredPoints)
	response, err := ingest.EncodeSuccess(encoding)
	writeExportResponse(w, log, encoding, response, err)
}
