package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TimescaleDB mode has no rollup queue: the continuous aggregates' refresh policies, run by
// TimescaleDB's job scheduler, materialise what the gateway wrote. Two lags are read from them:
//   - the watermark: how far (in sample time) the materialised buckets trail the newest raw row;
//     rows above it reach readers through the real-time aggregate anyway;
//   - the oldest row possibly not materialised: a refresh that started at S and succeeded
//     materialised every raw row committed before S inside its window, so now − S of the last
//     successful run bounds how long a committed row has waited, the counterpart of the plain
//     queue's oldest pending row. It matters for rows that land below the watermark (late data,
//     and here the slower servers' rows: sample time runs ahead of the clock, and each server's
//     at its own pace), which the real-time part does not show until the next refresh.

// minuteAggregates are the 1-minute aggregates of the families the benchmark writes, which the
// console's 24 h chart and the alert rules read.
var minuteAggregates = []string{"disk_io_1m", "disk_latency_1m", "memory_1m"}

// caggSample is one continuous aggregate's refresh state at one moment.
type caggSample struct {
	View            string
	Watermark       time.Time     // materialised up to here (data time)
	NewestRaw       time.Time     // newest row of its hypertable (data time)
	Unmaterialised  time.Duration // now − start of the last successful refresh (wall clock)
	Runs, Failures  int64         // of its refresh job since the server started
	Running         bool
	PendingRanges   int64 // invalidation log entries not yet materialised (hypertable log + its own)
	ScheduleSeconds float64
}

const caggSampleSQL = `
SELECT ca.view_name,
       _timescaledb_functions.to_timestamp(_timescaledb_functions.cagg_watermark(mat.id)),
       j.job_id, extract(epoch FROM j.schedule_interval)::float8,
       coalesce(s.total_runs, 0), coalesce(s.total_failures, 0),
       coalesce(s.last_finish < s.last_start, false),
       -- with timescaledb.enable_job_execution_logging every run is in the history; otherwise
       -- only the last run is known, and only once it has finished
       coalesce(extract(epoch FROM now() - (SELECT max(h.execution_start) FROM _timescaledb_internal.bgw_job_stat_history h
                                            WHERE h.job_id = j.job_id AND h.succeeded)),
                CASE WHEN s.last_run_success AND s.last_finish > s.last_start THEN extract(epoch FROM now() - s.last_start) END)::float8,
       (SELECT count(*) FROM _timescaledb_catalog.continuous_aggs_hypertable_invalidation_log l WHERE l.hypertable_id = raw.id)
         + (SELECT count(*) FROM _timescaledb_catalog.continuous_aggs_materialization_invalidation_log l WHERE l.materialization_id = mat.id),
       format('%I.%I', ca.hypertable_schema, ca.hypertable_name)
FROM timescaledb_information.continuous_aggregates ca
JOIN _timescaledb_catalog.hypertable mat ON mat.schema_name = ca.materialization_hypertable_schema AND mat.table_name = ca.materialization_hypertable_name
JOIN _timescaledb_catalog.hypertable raw ON raw.schema_name = ca.hypertable_schema AND raw.table_name = ca.hypertable_name
JOIN timescaledb_information.jobs j ON j.hypertable_schema = ca.view_schema
  AND j.hypertable_name = ca.view_name AND j.proc_name = 'policy_refresh_continuous_aggregate'
LEFT JOIN _timescaledb_internal.bgw_job_stat s ON s.job_id = j.job_id
WHERE ca.view_name = ANY($1)
ORDER BY ca.view_name`

// sampleCaggs reads the 1-minute aggregates' refresh state; false when the database has none
// (plain mode).
func sampleCaggs(ctx context.Context, db *pgxpool.Pool) ([]caggSample, bool) {
	rows, err := db.Query(ctx, caggSampleSQL, minuteAggregates)
	if err != nil {
		return nil, false
	}
	type raw struct {
		sample caggSample
		source string
	}
	var found []raw
	for rows.Next() {
		var r raw
		var jobID int64
		var unmaterialisedSeconds *float64
		if err := rows.Scan(&r.sample.View, &r.sample.Watermark, &jobID, &r.sample.ScheduleSeconds, &r.sample.Runs, &r.sample.Failures,
			&r.sample.Running, &unmaterialisedSeconds, &r.sample.PendingRanges, &r.source); err != nil {
			rows.Close()
			return nil, false
		}
		r.sample.Unmaterialised = -1 // no successful run yet
		if unmaterialisedSeconds != nil {
			r.sample.Unmaterialised = time.Duration(*unmaterialisedSeconds * float64(time.Second))
		}
		found = append(found, r)
	}
	if rows.Err() != nil || len(found) == 0 {
		return nil, false
	}
	samples := make([]caggSample, 0, len(found))
	for _, r := range found {
		var newest *time.Time
		if err := db.QueryRow(ctx, "SELECT max(time) FROM "+r.source).Scan(&newest); err == nil && newest != nil {
			r.sample.NewestRaw = *newest
		}
		samples = append(samples, r.sample)
	}
	return samples, true
}

// WatermarkLag is how far the materialised buckets trail the newest raw row, in sample time;
// false before the first refresh (the watermark is then -infinity).
func (s caggSample) WatermarkLag() (time.Duration, bool) {
	if s.Watermark.Year() < 1900 || s.NewestRaw.IsZero() {
		return 0, false
	}
	return s.NewestRaw.Sub(s.Watermark), true
}

func (s caggSample) String() string {
	unmaterialised := "no successful refresh yet"
	if s.Unmaterialised >= 0 {
		unmaterialised = "oldest row possibly not materialised " + s.Unmaterialised.Round(time.Second).String()
	}
	running := ""
	if s.Running {
		running = ", refreshing"
	}
	watermark := "no watermark yet"
	if lag, ok := s.WatermarkLag(); ok {
		watermark = "newest raw − watermark " + lag.Round(time.Second).String()
	}
	return fmt.Sprintf("%s: %s, %d ranges pending, runs %d (%d failed%s), %s",
		s.View, unmaterialised, s.PendingRanges, s.Runs, s.Failures, running, watermark)
}

// refreshRuns summarises the 1-minute aggregates' refresh runs that started since `since`
// (needs timescaledb.enable_job_execution_logging=on; ingest-bench.sh sets it).
func refreshRuns(ctx context.Context, db *pgxpool.Pool, since time.Time) []string {
	rows, err := db.Query(ctx, `
		SELECT ca.view_name, extract(epoch FROM j.schedule_interval)::float8, count(h.id),
		       count(h.id) FILTER (WHERE NOT h.succeeded),
		       coalesce(avg(extract(epoch FROM h.execution_finish - h.execution_start)), 0)::float8,
		       coalesce(max(extract(epoch FROM h.execution_finish - h.execution_start)), 0)::float8,
		       coalesce(max(extract(epoch FROM h.execution_start - h.previous_start)), 0)::float8,
		       coalesce(max(extract(epoch FROM h.execution_finish - h.previous_start)), 0)::float8
		FROM timescaledb_information.continuous_aggregates ca
		JOIN timescaledb_information.jobs j ON j.hypertable_schema = ca.view_schema
		  AND j.hypertable_name = ca.view_name AND j.proc_name = 'policy_refresh_continuous_aggregate'
		LEFT JOIN LATERAL (
		  SELECT id, succeeded, execution_start, execution_finish,
		         lag(execution_start) OVER (ORDER BY execution_start) AS previous_start
		  FROM _timescaledb_internal.bgw_job_stat_history
		  WHERE job_id = j.job_id AND execution_start >= $2 AND execution_finish IS NOT NULL) h ON true
		WHERE ca.view_name = ANY($1)
		GROUP BY ca.view_name, j.schedule_interval ORDER BY ca.view_name`, minuteAggregates, since)
	if err != nil {
		return nil
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var view string
		var schedule, mean, longest, widestGap, longestWait float64
		var runs, failed int64
		if rows.Scan(&view, &schedule, &runs, &failed, &mean, &longest, &widestGap, &longestWait) != nil {
			return lines
		}
		// A row committed just after a run started is materialised when the next run finishes.
		lines = append(lines, fmt.Sprintf("%s: %d refresh runs (%d failed), %.1f s mean, %.1f s longest, starts at most %.0f s apart (schedule %.0f s); "+
			"a committed row waited at most %.0f s to be materialised (a run's start to the next one's finish)",
			view, runs, failed, mean, longest, widestGap, schedule, longestWait))
	}
	return lines
}
