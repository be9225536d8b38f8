-- Issue 10 on TimescaleDB: the shared part (tables.sql); sqlserver_stats becomes a hypertable
-- with 1-day chunks, compressed after 3 days, raw rows kept 30 days, and real-time continuous
-- aggregates at 1 minute (kept 90 days) and 1 hour (kept 2 years) of the same shape as
-- plain.sql's rollup tables. Rates and means are computed by the reader from sums and counts:
--   batch requests/s = batch_requests / batch_seconds (only intervals that measured them),
--   hit ratio        = hit_ratio_sum / hit_ratio_samples,
--   page life        = page_life_expectancy_s / samples.

-- spindle:include tables.sql

SELECT create_hypertable('sqlserver_stats', by_range('time', INTERVAL '1 day'));
CREATE INDEX sqlserver_stats_org_server_time_idx ON sqlserver_stats (org_id, server_id, time DESC);

ALTER TABLE sqlserver_stats SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id, instance',
  timescaledb.compress_orderby = 'time DESC'
);
SELECT add_compression_policy('sqlserver_stats', INTERVAL '3 days');
SELECT add_retention_policy('sqlserver_stats', INTERVAL '30 days');

CREATE MATERIALIZED VIEW sqlserver_stats_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       instance,
       sum(interval_seconds) AS interval_seconds,
       sum(batch_requests)::bigint AS batch_requests,
       sum(CASE WHEN batch_requests IS NOT NULL THEN interval_seconds END) AS batch_seconds,
       sum(buffer_cache_hit_ratio) AS hit_ratio_sum,
       count(buffer_cache_hit_ratio) AS hit_ratio_samples,
       sum(page_life_expectancy_s)::bigint AS page_life_expectancy_s,
       count(*) AS samples
FROM sqlserver_stats
GROUP BY bucket, org_id, server_id, instance
WITH NO DATA;

CREATE MATERIALIZED VIEW sqlserver_stats_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       instance,
       sum(interval_seconds) AS interval_seconds,
       sum(batch_requests)::bigint AS batch_requests,
       sum(CASE WHEN batch_requests IS NOT NULL THEN interval_seconds END) AS batch_seconds,
       sum(buffer_cache_hit_ratio) AS hit_ratio_sum,
       count(buffer_cache_hit_ratio) AS hit_ratio_samples,
       sum(page_life_expectancy_s)::bigint AS page_life_expectancy_s,
       count(*) AS samples
FROM sqlserver_stats
GROUP BY bucket, org_id, server_id, instance
WITH NO DATA;

-- Same refresh windows as disk_io: 3 days back, so a replayed spool lands in the aggregates.
SELECT add_continuous_aggregate_policy('sqlserver_stats_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('sqlserver_stats_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_retention_policy('sqlserver_stats_1m', INTERVAL '90 days');
SELECT add_retention_policy('sqlserver_stats_1h', INTERVAL '2 years');

SELECT spindle_protect_tenant_relation('sqlserver_stats');
SELECT spindle_protect_tenant_relation('sqlserver_stats_1m');
SELECT spindle_protect_tenant_relation('sqlserver_stats_1h');
