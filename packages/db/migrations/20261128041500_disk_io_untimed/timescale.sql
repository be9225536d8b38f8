-- spindle.disk.io.untimed on TimescaleDB: the shared table (tables.sql) becomes a hypertable with
-- 1-day chunks, compressed after 3 days, raw rows kept 30 days, and real-time continuous
-- aggregates at 1 minute (kept 90 days) and 1 hour (kept 2 years) of the same shape as
-- plain.sql's rollup tables, refreshed like disk_latency's (the 1-minute one every 30 s on a
-- fixed schedule, 20261128020000_minute_aggregates_refresh_every_30s).

-- spindle:include tables.sql

SELECT create_hypertable('disk_io_untimed', by_range('time', INTERVAL '1 day'));
CREATE INDEX disk_io_untimed_org_server_time_idx ON disk_io_untimed (org_id, server_id, time DESC);

ALTER TABLE disk_io_untimed SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id, device, operation',
  timescaledb.compress_orderby = 'time DESC'
);
SELECT add_compression_policy('disk_io_untimed', INTERVAL '3 days');
SELECT add_retention_policy('disk_io_untimed', INTERVAL '30 days');

CREATE MATERIALIZED VIEW disk_io_untimed_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       device,
       operation,
       sum(interval_seconds) AS interval_seconds,
       sum(untimed_ops)::bigint AS untimed_ops,
       count(*) AS samples
FROM disk_io_untimed
GROUP BY bucket, org_id, server_id, device, operation
WITH NO DATA;

CREATE MATERIALIZED VIEW disk_io_untimed_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       device,
       operation,
       sum(interval_seconds) AS interval_seconds,
       sum(untimed_ops)::bigint AS untimed_ops,
       count(*) AS samples
FROM disk_io_untimed
GROUP BY bucket, org_id, server_id, device, operation
WITH NO DATA;

-- 3 days back, so a replayed spool lands in the aggregates.
SELECT add_continuous_aggregate_policy('disk_io_untimed_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT alter_job(j.job_id, schedule_interval => INTERVAL '30 seconds', fixed_schedule => true,
                 initial_start => date_trunc('minute', now()))
FROM timescaledb_information.jobs AS j
WHERE j.proc_name = 'policy_refresh_continuous_aggregate' AND j.hypertable_name = 'disk_io_untimed_1m';
SELECT add_continuous_aggregate_policy('disk_io_untimed_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_retention_policy('disk_io_untimed_1m', INTERVAL '90 days');
SELECT add_retention_policy('disk_io_untimed_1h', INTERVAL '2 years');

SELECT spindle_protect_tenant_relation('disk_io_untimed');
SELECT spindle_protect_tenant_relation('disk_io_untimed_1m');
SELECT spindle_protect_tenant_relation('disk_io_untimed_1h');
