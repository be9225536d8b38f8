-- Deep telemetry on TimescaleDB: the raw tables of tables.sql become hypertables with 1-day
-- chunks (fragmentation history: 30-day chunks, it changes once per scan), compressed after
-- 3 days, raw rows kept 30 days, and real-time continuous aggregates at 1 minute (kept 90 days)
-- and 1 hour (kept 2 years), exactly as 20261121080100_telemetry does for disk_io and memory.
-- Shapes match plain.sql's rollup tables column for column (test/support/aggregate-shapes.ts).

-- spindle:include tables.sql

SELECT create_hypertable('disk_latency', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('disk_split_io', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('page_cache', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('pg_database_stats', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('pressure', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('fragmentation_scans', by_range('time', INTERVAL '30 days'));

CREATE INDEX disk_latency_org_server_time_idx ON disk_latency (org_id, server_id, time DESC);
CREATE INDEX disk_split_io_org_server_time_idx ON disk_split_io (org_id, server_id, time DESC);
CREATE INDEX page_cache_org_server_time_idx ON page_cache (org_id, server_id, time DESC);
CREATE INDEX pg_database_stats_org_server_time_idx ON pg_database_stats (org_id, server_id, time DESC);
CREATE INDEX pressure_org_server_time_idx ON pressure (org_id, server_id, time DESC);
CREATE INDEX fragmentation_scans_org_server_root_time_idx ON fragmentation_scans (org_id, server_id, root, time DESC);

-- Segments are what the console filters on, so a compressed chunk is read one series at a time.
ALTER TABLE disk_latency SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id, device, operation',
  timescaledb.compress_orderby = 'time DESC'
);
ALTER TABLE disk_split_io SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id, device',
  timescaledb.compress_orderby = 'time DESC'
);
ALTER TABLE page_cache SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id',
  timescaledb.compress_orderby = 'time DESC'
);
ALTER TABLE pg_database_stats SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id, database',
  timescaledb.compress_orderby = 'time DESC'
);
ALTER TABLE pressure SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id',
  timescaledb.compress_orderby = 'time DESC'
);
SELECT add_compression_policy('disk_latency', INTERVAL '3 days');
SELECT add_compression_policy('disk_split_io', INTERVAL '3 days');
SELECT add_compression_policy('page_cache', INTERVAL '3 days');
SELECT add_compression_policy('pg_database_stats', INTERVAL '3 days');
SELECT add_compression_policy('pressure', INTERVAL '3 days');

SELECT add_retention_policy('disk_latency', INTERVAL '30 days');
SELECT add_retention_policy('disk_split_io', INTERVAL '30 days');
SELECT add_retention_policy('page_cache', INTERVAL '30 days');
SELECT add_retention_policy('pg_database_stats', INTERVAL '30 days');
SELECT add_retention_policy('pressure', INTERVAL '30 days');
-- One row per scan result that differs from the previous one: two years cost little.
SELECT add_retention_policy('fragmentation_scans', INTERVAL '2 years');

-- Every column is a sum, so any coarser bucket is exact: rates are sum(delta) / sum(interval_seconds),
-- hit ratios are ratios of sums, and latency percentiles come from summed bucket counts (never
-- from averaged percentiles). Counter sums are cast back to bigint so both modes return the
-- same types. A column that is NULL in every raw row of a bucket (not measured) stays NULL.

CREATE MATERIALIZED VIEW disk_latency_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       device,
       operation,
       sum(interval_seconds) AS interval_seconds,
       sum(operations)::bigint AS operations,
       sum(sum_seconds) AS sum_seconds,
       sum(bucket_00)::bigint AS bucket_00,
       sum(bucket_01)::bigint AS bucket_01,
       sum(bucket_02)::bigint AS bucket_02,
       sum(bucket_03)::bigint AS bucket_03,
       sum(bucket_04)::bigint AS bucket_04,
       sum(bucket_05)::bigint AS bucket_05,
       sum(bucket_06)::bigint AS bucket_06,
       sum(bucket_07)::bigint AS bucket_07,
       sum(bucket_08)::bigint AS bucket_08,
       sum(bucket_09)::bigint AS bucket_09,
       sum(bucket_10)::bigint AS bucket_10,
       sum(bucket_11)::bigint AS bucket_11,
       sum(bucket_12)::bigint AS bucket_12,
       sum(bucket_13)::bigint AS bucket_13,
       sum(bucket_14)::bigint AS bucket_14,
       sum(bucket_15)::bigint AS bucket_15,
       sum(bucket_16)::bigint AS bucket_16,
       sum(bucket_17)::bigint AS bucket_17,
       sum(bucket_18)::bigint AS bucket_18,
       sum(bucket_19)::bigint AS bucket_19,
       sum(bucket_20)::bigint AS bucket_20,
       sum(bucket_21)::bigint AS bucket_21,
       sum(bucket_22)::bigint AS bucket_22,
       sum(bucket_23)::bigint AS bucket_23,
       sum(bucket_24)::bigint AS bucket_24,
       sum(bucket_25)::bigint AS bucket_25,
       sum(bucket_26)::bigint AS bucket_26,
       sum(bucket_27)::bigint AS bucket_27,
       count(*) AS samples
FROM disk_latency
GROUP BY bucket, org_id, server_id, device, operation
WITH NO DATA;

CREATE MATERIALIZED VIEW disk_latency_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       device,
       operation,
       sum(interval_seconds) AS interval_seconds,
       sum(operations)::bigint AS operations,
       sum(sum_seconds) AS sum_seconds,
       sum(bucket_00)::bigint AS bucket_00,
       sum(bucket_01)::bigint AS bucket_01,
       sum(bucket_02)::bigint AS bucket_02,
       sum(bucket_03)::bigint AS bucket_03,
       sum(bucket_04)::bigint AS bucket_04,
       sum(bucket_05)::bigint AS bucket_05,
       sum(bucket_06)::bigint AS bucket_06,
       sum(bucket_07)::bigint AS bucket_07,
       sum(bucket_08)::bigint AS bucket_08,
       sum(bucket_09)::bigint AS bucket_09,
       sum(bucket_10)::bigint AS bucket_10,
       sum(bucket_11)::bigint AS bucket_11,
       sum(bucket_12)::bigint AS bucket_12,
       sum(bucket_13)::bigint AS bucket_13,
       sum(bucket_14)::bigint AS bucket_14,
       sum(bucket_15)::bigint AS bucket_15,
       sum(bucket_16)::bigint AS bucket_16,
       sum(bucket_17)::bigint AS bucket_17,
       sum(bucket_18)::bigint AS bucket_18,
       sum(bucket_19)::bigint AS bucket_19,
       sum(bucket_20)::bigint AS bucket_20,
       sum(bucket_21)::bigint AS bucket_21,
       sum(bucket_22)::bigint AS bucket_22,
       sum(bucket_23)::bigint AS bucket_23,
       sum(bucket_24)::bigint AS bucket_24,
       sum(bucket_25)::bigint AS bucket_25,
       sum(bucket_26)::bigint AS bucket_26,
       sum(bucket_27)::bigint AS bucket_27,
       count(*) AS samples
FROM disk_latency
GROUP BY bucket, org_id, server_id, device, operation
WITH NO DATA;

CREATE MATERIALIZED VIEW disk_split_io_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       device,
       sum(interval_seconds) AS interval_seconds,
       sum(split_ops)::bigint AS split_ops,
       count(*) AS samples
FROM disk_split_io
GROUP BY bucket, org_id, server_id, device
WITH NO DATA;

CREATE MATERIALIZED VIEW disk_split_io_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       device,
       sum(interval_seconds) AS interval_seconds,
       sum(split_ops)::bigint AS split_ops,
       count(*) AS samples
FROM disk_split_io
GROUP BY bucket, org_id, server_id, device
WITH NO DATA;

CREATE MATERIALIZED VIEW page_cache_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(accesses)::bigint AS accesses,
       sum(misses)::bigint AS misses,
       count(*) AS samples
FROM page_cache
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW page_cache_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(accesses)::bigint AS accesses,
       sum(misses)::bigint AS misses,
       count(*) AS samples
FROM page_cache
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW pg_database_stats_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       database,
       sum(interval_seconds) AS interval_seconds,
       sum(commits)::bigint AS commits,
       sum(rollbacks)::bigint AS rollbacks,
       sum(blocks_hit)::bigint AS blocks_hit,
       sum(blocks_read)::bigint AS blocks_read,
       sum(block_read_time_us)::bigint AS block_read_time_us,
       count(*) AS samples
FROM pg_database_stats
GROUP BY bucket, org_id, server_id, database
WITH NO DATA;

CREATE MATERIALIZED VIEW pg_database_stats_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       database,
       sum(interval_seconds) AS interval_seconds,
       sum(commits)::bigint AS commits,
       sum(rollbacks)::bigint AS rollbacks,
       sum(blocks_hit)::bigint AS blocks_hit,
       sum(blocks_read)::bigint AS blocks_read,
       sum(block_read_time_us)::bigint AS block_read_time_us,
       count(*) AS samples
FROM pg_database_stats
GROUP BY bucket, org_id, server_id, database
WITH NO DATA;

CREATE MATERIALIZED VIEW pressure_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(memory_some_us)::bigint AS memory_some_us,
       sum(memory_full_us)::bigint AS memory_full_us,
       sum(io_some_us)::bigint AS io_some_us,
       sum(io_full_us)::bigint AS io_full_us,
       count(*) AS samples
FROM pressure
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW pressure_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(memory_some_us)::bigint AS memory_some_us,
       sum(memory_full_us)::bigint AS memory_full_us,
       sum(io_some_us)::bigint AS io_some_us,
       sum(io_full_us)::bigint AS io_full_us,
       count(*) AS samples
FROM pressure
GROUP BY bucket, org_id, server_id
WITH NO DATA;

-- Same refresh windows as disk_io: 3 days back, so a replayed spool lands in the aggregates.
SELECT add_continuous_aggregate_policy('disk_latency_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('disk_latency_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_continuous_aggregate_policy('disk_split_io_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('disk_split_io_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_continuous_aggregate_policy('page_cache_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('page_cache_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_continuous_aggregate_policy('pg_database_stats_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('pg_database_stats_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_continuous_aggregate_policy('pressure_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('pressure_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');

SELECT add_retention_policy('disk_latency_1m', INTERVAL '90 days');
SELECT add_retention_policy('disk_latency_1h', INTERVAL '2 years');
SELECT add_retention_policy('disk_split_io_1m', INTERVAL '90 days');
SELECT add_retention_policy('disk_split_io_1h', INTERVAL '2 years');
SELECT add_retention_policy('page_cache_1m', INTERVAL '90 days');
SELECT add_retention_policy('page_cache_1h', INTERVAL '2 years');
SELECT add_retention_policy('pg_database_stats_1m', INTERVAL '90 days');
SELECT add_retention_policy('pg_database_stats_1h', INTERVAL '2 years');
SELECT add_retention_policy('pressure_1m', INTERVAL '90 days');
SELECT add_retention_policy('pressure_1h', INTERVAL '2 years');
