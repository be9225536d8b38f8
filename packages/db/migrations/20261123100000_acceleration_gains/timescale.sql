-- Acceleration gains on TimescaleDB: read_cache and write_opt become hypertables with 1-day
-- chunks, compressed after 3 days by (org_id, server_id), raw rows kept 30 days, and real-time
-- continuous aggregates at 1 minute (kept 90 days) and 1 hour (kept 2 years), as
-- 20261121140000_deep_telemetry does. Shapes match plain.sql's rollup tables column for column.
-- Every aggregate column is a sum or a count, so any coarser window merges exactly: a gauge's
-- mean is <g>_sum / <g>_samples (count of rows that carried it), the memory-read latency's mean
-- is memory_read_latency_weighted_seconds / memory_read_latency_samples.

-- spindle:include tables.sql

SELECT create_hypertable('read_cache', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('write_opt', by_range('time', INTERVAL '1 day'));

CREATE INDEX read_cache_org_server_time_idx ON read_cache (org_id, server_id, time DESC);
CREATE INDEX write_opt_org_server_time_idx ON write_opt (org_id, server_id, time DESC);

ALTER TABLE read_cache SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id',
  timescaledb.compress_orderby = 'time DESC'
);
ALTER TABLE write_opt SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id',
  timescaledb.compress_orderby = 'time DESC'
);
SELECT add_compression_policy('read_cache', INTERVAL '3 days');
SELECT add_compression_policy('write_opt', INTERVAL '3 days');

SELECT add_retention_policy('read_cache', INTERVAL '30 days');
SELECT add_retention_policy('write_opt', INTERVAL '30 days');

CREATE MATERIALIZED VIEW read_cache_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(budget_bytes)::bigint AS budget_bytes_sum,
       count(budget_bytes) AS budget_bytes_samples,
       sum(resident_bytes)::bigint AS resident_bytes_sum,
       count(resident_bytes) AS resident_bytes_samples,
       sum(pinned_bytes)::bigint AS pinned_bytes_sum,
       count(pinned_bytes) AS pinned_bytes_samples,
       sum(managed_files)::bigint AS managed_files_sum,
       count(managed_files) AS managed_files_samples,
       sum(hits_bytes)::bigint AS hits_bytes,
       sum(misses_bytes)::bigint AS misses_bytes,
       sum(prefetched_bytes)::bigint AS prefetched_bytes,
       sum(dropped_behind_bytes)::bigint AS dropped_behind_bytes,
       sum(backoffs)::bigint AS backoffs,
       sum(memory_read_latency_seconds * memory_read_latency_samples) AS memory_read_latency_weighted_seconds,
       sum(memory_read_latency_samples)::bigint AS memory_read_latency_samples,
       count(*) AS samples
FROM read_cache
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW read_cache_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(budget_bytes)::bigint AS budget_bytes_sum,
       count(budget_bytes) AS budget_bytes_samples,
       sum(resident_bytes)::bigint AS resident_bytes_sum,
       count(resident_bytes) AS resident_bytes_samples,
       sum(pinned_bytes)::bigint AS pinned_bytes_sum,
       count(pinned_bytes) AS pinned_bytes_samples,
       sum(managed_files)::bigint AS managed_files_sum,
       count(managed_files) AS managed_files_samples,
       sum(hits_bytes)::bigint AS hits_bytes,
       sum(misses_bytes)::bigint AS misses_bytes,
       sum(prefetched_bytes)::bigint AS prefetched_bytes,
       sum(dropped_behind_bytes)::bigint AS dropped_behind_bytes,
       sum(backoffs)::bigint AS backoffs,
       sum(memory_read_latency_seconds * memory_read_latency_samples) AS memory_read_latency_weighted_seconds,
       sum(memory_read_latency_samples)::bigint AS memory_read_latency_samples,
       count(*) AS samples
FROM read_cache
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW write_opt_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(preallocated_bytes)::bigint AS preallocated_bytes,
       sum(fragments_prevented)::bigint AS fragments_prevented,
       sum(files_defragmented)::bigint AS files_defragmented,
       sum(managed_grown_bytes)::bigint AS managed_grown_bytes,
       sum(managed_extents_added)::bigint AS managed_extents_added,
       sum(unmanaged_grown_bytes)::bigint AS unmanaged_grown_bytes,
       sum(unmanaged_extents_added)::bigint AS unmanaged_extents_added,
       count(*) AS samples
FROM write_opt
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW write_opt_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(preallocated_bytes)::bigint AS preallocated_bytes,
       sum(fragments_prevented)::bigint AS fragments_prevented,
       sum(files_defragmented)::bigint AS files_defragmented,
       sum(managed_grown_bytes)::bigint AS managed_grown_bytes,
       sum(managed_extents_added)::bigint AS managed_extents_added,
       sum(unmanaged_grown_bytes)::bigint AS unmanaged_grown_bytes,
       sum(unmanaged_extents_added)::bigint AS unmanaged_extents_added,
       count(*) AS samples
FROM write_opt
GROUP BY bucket, org_id, server_id
WITH NO DATA;

-- Same refresh windows as disk_io: 3 days back, so a replayed spool lands in the aggregates.
SELECT add_continuous_aggregate_policy('read_cache_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('read_cache_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_continuous_aggregate_policy('write_opt_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('write_opt_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');

SELECT add_retention_policy('read_cache_1m', INTERVAL '90 days');
SELECT add_retention_policy('read_cache_1h', INTERVAL '2 years');
SELECT add_retention_policy('write_opt_1m', INTERVAL '90 days');
SELECT add_retention_policy('write_opt_1h', INTERVAL '2 years');
