-- Issue 10: SQL Server statistics from its performance counters (docs/metrics.md, "Databases"),
-- next to PostgreSQL's pg_database_stats. Shared by plain.sql and timescale.sql.
--
-- One row per instance and interval. batch_requests is a delta, NULL for the first interval after
-- the agent or the instance started (the counter's baseline was read, nothing to subtract from);
-- buffer_cache_hit_ratio is NULL while the instance has read no page. Both NULLs mean "not
-- measured", never 0.
CREATE TABLE sqlserver_stats (
  time                   timestamptz      NOT NULL,  -- end of the sampling interval
  org_id                 text             NOT NULL,
  server_id              uuid             NOT NULL,
  instance               text             NOT NULL CHECK (length(instance) BETWEEN 1 AND 128),
  interval_seconds       double precision NOT NULL CHECK (interval_seconds > 0),
  batch_requests         bigint           CHECK (batch_requests >= 0),
  buffer_cache_hit_ratio double precision CHECK (buffer_cache_hit_ratio BETWEEN 0 AND 1),
  page_life_expectancy_s bigint           NOT NULL CHECK (page_life_expectancy_s >= 0)
);
