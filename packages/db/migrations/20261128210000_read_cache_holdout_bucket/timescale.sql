-- The read cache's counters per hash bucket on TimescaleDB: the shared table (tables.sql) becomes
-- a hypertable with 1-day chunks, compressed after 3 days by (org_id, server_id), raw rows kept
-- 30 days, and real-time continuous aggregates at 1 minute (kept 90 days, refreshed every 30 s on
-- a fixed schedule like the other 1-minute ones) and 1 hour (kept 2 years) per hash bucket, of
-- the same shape as plain.sql's rollup tables: sums and the count of agent intervals.

-- spindle:include tables.sql

SELECT create_hypertable('read_cache_holdout_bucket', by_range('time', INTERVAL '1 day'));
CREATE INDEX read_cache_holdout_bucket_org_server_time_idx ON read_cache_holdout_bucket (org_id, server_id, time DESC);

ALTER TABLE read_cache_holdout_bucket SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id',
  timescaledb.compress_orderby = 'time DESC, hash_bucket'
);
SELECT add_compression_policy('read_cache_holdout_bucket', INTERVAL '3 days');
SELECT add_retention_policy('read_cache_holdout_bucket', INTERVAL '30 days');

CREATE MATERIALIZED VIEW read_cache_holdout_bucket_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       hash_bucket,
       sum(interval_seconds) AS interval_seconds,
       sum(managed_accessed_bytes)::bigint AS managed_accessed_bytes,
       sum(managed_missed_bytes)::bigint AS managed_missed_bytes,
       sum(control_accessed_bytes)::bigint AS control_accessed_bytes,
       sum(control_missed_bytes)::bigint AS control_missed_bytes,
       count(*) AS samples
FROM read_cache_holdout_bucket
GROUP BY bucket, org_id, server_id, hash_bucket
WITH NO DATA;

CREATE MATERIALIZED VIEW read_cache_holdout_bucket_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       hash_bucket,
       sum(interval_seconds) AS interval_seconds,
       sum(managed_accessed_bytes)::bigint AS managed_accessed_bytes,
       sum(managed_missed_bytes)::bigint AS managed_missed_bytes,
       sum(control_accessed_bytes)::bigint AS control_accessed_bytes,
       sum(control_missed_bytes)::bigint AS control_missed_bytes,
       count(*) AS samples
FROM read_cache_holdout_bucket
GROUP BY bucket, org_id, server_id, hash_bucket
WITH NO DATA;

-- 3 days back, so a replayed spool lands in the aggregates.
SELECT add_continuous_aggregate_policy('read_cache_holdout_bucket_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT alter_job(j.job_id, schedule_interval => INTERVAL '30 seconds', fixed_schedule => true,
                 initial_start => date_trunc('minute', now()))
FROM timescaledb_information.jobs AS j
WHERE j.proc_name = 'policy_refresh_continuous_aggregate' AND j.hypertable_name = 'read_cache_holdout_bucket_1m';
SELECT add_continuous_aggregate_policy('read_cache_holdout_bucket_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_retention_policy('read_cache_holdout_bucket_1m', INTERVAL '90 days');
SELECT add_retention_policy('read_cache_holdout_bucket_1h', INTERVAL '2 years');

SELECT spindle_protect_tenant_relation('read_cache_holdout_bucket');
SELECT spindle_protect_tenant_relation('read_cache_holdout_bucket_1m');
SELECT spindle_protect_tenant_relation('read_cache_holdout_bucket_1h');
