-- The read cache's control group on plain PostgreSQL: the shared table (tables.sql) with BRIN
-- and per-server indexes, rollup tables of the same names and shape as timescale.sql's
-- continuous aggregates, and the trigger that queues every insert for the worker's `rollup` job
-- (apps/worker/src/jobs/gains-families.ts); its `retention` job ages them out (raw 30 days,
-- 1 minute 90 days, 1 hour 2 years).

-- spindle:include tables.sql

CREATE INDEX read_cache_holdout_time_brin ON read_cache_holdout USING brin (time);
CREATE INDEX read_cache_holdout_org_server_time_idx ON read_cache_holdout (org_id, server_id, time DESC);

CREATE TABLE read_cache_holdout_1m (
  bucket                   timestamptz      NOT NULL,
  org_id                   text             NOT NULL,
  server_id                uuid             NOT NULL,
  interval_seconds         double precision NOT NULL,
  holdout_percent_sum      bigint          ,
  holdout_percent_samples  bigint           NOT NULL,
  managed_accessed_bytes   bigint          ,
  managed_missed_bytes     bigint          ,
  control_accessed_bytes   bigint          ,
  control_missed_bytes     bigint          ,
  own_read_bytes           bigint          ,
  own_page_hit_bytes       bigint          ,
  samples                  bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket)
);
CREATE TABLE read_cache_holdout_1h (LIKE read_cache_holdout_1m INCLUDING ALL);
CREATE INDEX read_cache_holdout_1m_bucket_brin ON read_cache_holdout_1m USING brin (bucket);
CREATE INDEX read_cache_holdout_1h_bucket_brin ON read_cache_holdout_1h USING brin (bucket);

ALTER TABLE rollup_pending DROP CONSTRAINT rollup_pending_source_check;
ALTER TABLE rollup_pending ADD CONSTRAINT rollup_pending_source_check
  CHECK (source IN ('disk_io', 'memory', 'disk_latency', 'disk_split_io', 'page_cache', 'pg_database_stats', 'pressure', 'read_cache', 'write_opt',
                    'filesystem', 'agent_spool', 'sqlserver_stats', 'disk_io_untimed', 'read_cache_holdout'));

-- Skipped inside a gateway group, which queues its ranges itself (20261125120000_group_rollup_queue).
CREATE TRIGGER read_cache_holdout_queue_rollup AFTER INSERT ON read_cache_holdout
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT
  WHEN (current_setting('spindle.rollups_queued', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION queue_rollup();

SELECT spindle_protect_tenant_relation('read_cache_holdout');
SELECT spindle_protect_tenant_relation('read_cache_holdout_1m');
SELECT spindle_protect_tenant_relation('read_cache_holdout_1h');
