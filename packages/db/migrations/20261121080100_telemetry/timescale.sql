-- Telemetry on TimescaleDB: hypertables with 1-day chunks, compression after 3 days, raw
-- retention 30 days, and real-time continuous aggregates at 1 minute and 1 hour that the
-- console and the alert rules read. Shapes match plain.sql's rollup tables column for column
-- (docs/metrics.md, "Aggregates"); test/telemetry-shapes.test.ts holds both to one list.
-- Needs TimescaleDB 2.13 or later (by_range).

-- spindle:include tables.sql

SELECT create_hypertable('disk_io', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('memory', by_range('time', INTERVAL '1 day'));

-- Every console and gateway query names one org and one server, newest first.
CREATE INDEX disk_io_org_server_time_idx ON disk_io (org_id, server_id, time DESC);
CREATE INDEX memory_org_server_time_idx ON memory (org_id, server_id, time DESC);

-- Segments are what queries filter on, so a compressed chunk is read one server (and device) at a time.
ALTER TABLE disk_io SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id, device',
  timescaledb.compress_orderby = 'time DESC'
);
ALTER TABLE memory SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id',
  timescaledb.compress_orderby = 'time DESC'
);
SELECT add_compression_policy('disk_io', INTERVAL '3 days');
SELECT add_compression_policy('memory', INTERVAL '3 days');

SELECT add_retention_policy('disk_io', INTERVAL '30 days');
SELECT add_retention_policy('memory', INTERVAL '30 days');

-- Counter sums are cast back to bigint (sum(bigint) is numeric) so both storage modes return
-- the same types; an hour of deltas is far from overflowing bigint.
CREATE MATERIALIZED VIEW disk_io_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       device,
       sum(interval_seconds)              AS interval_seconds,
       sum(read_ops)::bigint              AS read_ops,
       sum(write_ops)::bigint             AS write_ops,
       sum(read_bytes)::bigint            AS read_bytes,
       sum(write_bytes)::bigint           AS write_bytes,
       sum(read_merged)::bigint           AS read_merged,
       sum(write_merged)::bigint          AS write_merged,
       sum(read_time_ms)::bigint          AS read_time_ms,
       sum(write_time_ms)::bigint         AS write_time_ms,
       sum(io_time_ms)::bigint            AS io_time_ms,
       sum(weighted_io_time_ms)::bigint   AS weighted_io_time_ms,
       max(in_progress)                   AS in_progress_max,
       count(*)                           AS samples
FROM disk_io
GROUP BY bucket, org_id, server_id, device
WITH NO DATA;

CREATE MATERIALIZED VIEW disk_io_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       device,
       sum(interval_seconds)              AS interval_seconds,
       sum(read_ops)::bigint              AS read_ops,
       sum(write_ops)::bigint             AS write_ops,
       sum(read_bytes)::bigint            AS read_bytes,
       sum(write_bytes)::bigint           AS write_bytes,
       sum(read_merged)::bigint           AS read_merged,
       sum(write_merged)::bigint          AS write_merged,
       sum(read_time_ms)::bigint          AS read_time_ms,
       sum(write_time_ms)::bigint         AS write_time_ms,
       sum(io_time_ms)::bigint            AS io_time_ms,
       sum(weighted_io_time_ms)::bigint   AS weighted_io_time_ms,
       max(in_progress)                   AS in_progress_max,
       count(*)                           AS samples
FROM disk_io
GROUP BY bucket, org_id, server_id, device
WITH NO DATA;

-- Gauges average to whole bytes; the minimum of available memory keeps short squeezes visible.
CREATE MATERIALIZED VIEW memory_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       avg(total_bytes)::bigint             AS total_bytes,
       avg(available_bytes)::bigint         AS available_bytes,
       avg(free_bytes)::bigint              AS free_bytes,
       avg(cached_bytes)::bigint            AS cached_bytes,
       avg(buffers_bytes)::bigint           AS buffers_bytes,
       avg(dirty_bytes)::bigint             AS dirty_bytes,
       avg(swap_total_bytes)::bigint        AS swap_total_bytes,
       avg(swap_free_bytes)::bigint         AS swap_free_bytes,
       min(available_bytes)                 AS available_min_bytes,
       count(*)                             AS samples
FROM memory
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW memory_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       avg(total_bytes)::bigint             AS total_bytes,
       avg(available_bytes)::bigint         AS available_bytes,
       avg(free_bytes)::bigint              AS free_bytes,
       avg(cached_bytes)::bigint            AS cached_bytes,
       avg(buffers_bytes)::bigint           AS buffers_bytes,
       avg(dirty_bytes)::bigint             AS dirty_bytes,
       avg(swap_total_bytes)::bigint        AS swap_total_bytes,
       avg(swap_free_bytes)::bigint         AS swap_free_bytes,
       min(available_bytes)                 AS available_min_bytes,
       count(*)                             AS samples
FROM memory
GROUP BY bucket, org_id, server_id
WITH NO DATA;

-- Refresh windows reach back 3 days, so an agent's spool replayed after an outage (up to the
-- compression horizon) lands in the aggregates; TimescaleDB only re-materialises buckets whose
-- raw rows changed, so the wide window costs nothing when nothing arrived late. The window
-- stays inside raw retention, so dropping old raw chunks never empties aggregate buckets.
SELECT add_continuous_aggregate_policy('disk_io_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('memory_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('disk_io_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_continuous_aggregate_policy('memory_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');

-- Aggregates outlive raw rows: 24 h charts need 1-minute buckets for 90 days, 7 d charts and
-- reports need hourly buckets for two years.
SELECT add_retention_policy('disk_io_1m', INTERVAL '90 days');
SELECT add_retention_policy('memory_1m', INTERVAL '90 days');
SELECT add_retention_policy('disk_io_1h', INTERVAL '2 years');
SELECT add_retention_policy('memory_1h', INTERVAL '2 years');
