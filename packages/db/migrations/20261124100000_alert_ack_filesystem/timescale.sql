-- Issue 8 on TimescaleDB: the shared part (tables.sql); filesystem and agent_spool become
-- hypertables with 1-day chunks, compressed after 3 days, raw rows kept 30 days, and real-time
-- continuous aggregates at 1 minute (kept 90 days) and 1 hour (kept 2 years) of the same shapes
-- as plain.sql's rollup tables. Every aggregate column is a sum or a count: a gauge's mean over
-- any window is <column> / samples.

-- spindle:include tables.sql

SELECT create_hypertable('filesystem', by_range('time', INTERVAL '1 day'));
SELECT create_hypertable('agent_spool', by_range('time', INTERVAL '1 day'));

CREATE INDEX filesystem_org_server_time_idx ON filesystem (org_id, server_id, time DESC);
CREATE INDEX agent_spool_org_server_time_idx ON agent_spool (org_id, server_id, time DESC);

ALTER TABLE filesystem SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id, mountpoint',
  timescaledb.compress_orderby = 'time DESC'
);
ALTER TABLE agent_spool SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'org_id, server_id',
  timescaledb.compress_orderby = 'time DESC'
);
SELECT add_compression_policy('filesystem', INTERVAL '3 days');
SELECT add_compression_policy('agent_spool', INTERVAL '3 days');
SELECT add_retention_policy('filesystem', INTERVAL '30 days');
SELECT add_retention_policy('agent_spool', INTERVAL '30 days');

CREATE MATERIALIZED VIEW filesystem_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       mountpoint,
       device,
       sum(interval_seconds) AS interval_seconds,
       sum(size_bytes)::bigint AS size_bytes,
       sum(free_bytes)::bigint AS free_bytes,
       sum(available_bytes)::bigint AS available_bytes,
       count(*) AS samples
FROM filesystem
GROUP BY bucket, org_id, server_id, mountpoint, device
WITH NO DATA;

CREATE MATERIALIZED VIEW filesystem_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       mountpoint,
       device,
       sum(interval_seconds) AS interval_seconds,
       sum(size_bytes)::bigint AS size_bytes,
       sum(free_bytes)::bigint AS free_bytes,
       sum(available_bytes)::bigint AS available_bytes,
       count(*) AS samples
FROM filesystem
GROUP BY bucket, org_id, server_id, mountpoint, device
WITH NO DATA;

CREATE MATERIALIZED VIEW agent_spool_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 minute', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(spool_bytes)::bigint AS spool_bytes,
       sum(pending_batches)::bigint AS pending_batches,
       count(*) AS samples
FROM agent_spool
GROUP BY bucket, org_id, server_id
WITH NO DATA;

CREATE MATERIALIZED VIEW agent_spool_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT time_bucket(INTERVAL '1 hour', time) AS bucket,
       org_id,
       server_id,
       sum(interval_seconds) AS interval_seconds,
       sum(spool_bytes)::bigint AS spool_bytes,
       sum(pending_batches)::bigint AS pending_batches,
       count(*) AS samples
FROM agent_spool
GROUP BY bucket, org_id, server_id
WITH NO DATA;

-- Same refresh windows as disk_io: 3 days back, so a replayed spool lands in the aggregates.
SELECT add_continuous_aggregate_policy('filesystem_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('filesystem_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_retention_policy('filesystem_1m', INTERVAL '90 days');
SELECT add_retention_policy('filesystem_1h', INTERVAL '2 years');
SELECT add_continuous_aggregate_policy('agent_spool_1m',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 minute', schedule_interval => INTERVAL '1 minute');
SELECT add_continuous_aggregate_policy('agent_spool_1h',
  start_offset => INTERVAL '3 days', end_offset => INTERVAL '1 hour', schedule_interval => INTERVAL '15 minutes');
SELECT add_retention_policy('agent_spool_1m', INTERVAL '90 days');
SELECT add_retention_policy('agent_spool_1h', INTERVAL '2 years');

SELECT spindle_protect_tenant_relation('filesystem');
SELECT spindle_protect_tenant_relation('agent_spool');
SELECT spindle_protect_tenant_relation('filesystem_1m');
SELECT spindle_protect_tenant_relation('filesystem_1h');
SELECT spindle_protect_tenant_relation('agent_spool_1m');
SELECT spindle_protect_tenant_relation('agent_spool_1h');
