-- The read cache's counters per hash bucket on plain PostgreSQL: the shared table (tables.sql)
-- with BRIN and per-server indexes, rollup tables of the same names and shape as timescale.sql's
-- continuous aggregates, and the trigger that queues every insert for the worker's `rollup` job
-- (apps/worker/src/jobs/gains-families.ts); its `retention` job ages them out (raw 30 days,
-- 1 minute 90 days, 1 hour 2 years).

-- spindle:include tables.sql

CREATE INDEX read_cache_holdout_bucket_time_brin ON read_cache_holdout_bucket USING brin (time);
CREATE INDEX read_cache_holdout_bucket_org_server_time_idx ON read_cache_holdout_bucket (org_id, server_id, time DESC);

CREATE TABLE read_cache_holdout_bucket_1m (
  bucket                   timestamptz      NOT NULL,
  org_id                   text             NOT NULL,
  server_id                uuid             NOT NULL,
  hash_bucket              smallint         NOT NULL,
  interval_seconds         double precision NOT NULL,
  managed_accessed_bytes   bigint          ,
  managed_missed_bytes     bigint          ,
  control_accessed_bytes   bigint          ,
  control_missed_bytes     bigint          ,
  samples                  bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, hash_bucket)
);
CREATE TABLE read_cache_holdout_bucket_1h (LIKE read_cache_holdout_bucket_1m INCLUDING ALL);
CREATE INDEX read_cache_holdout_bucket_1m_bucket_brin ON read_cache_holdout_bucket_1m USING brin (bucket);
CREATE INDEX read_cache_holdout_bucket_1h_bucket_brin ON read_cache_holdout_bucket_1h USING brin (bucket);

ALTER TABLE rollup_pending DROP CONSTRAINT rollup_pending_source_check;
ALTER TABLE rollup_pending ADD CONSTRAINT rollup_pending_source_check
  CHECK (source IN ('disk_io', 'memory', 'disk_latency', 'disk_split_io', 'page_cache', 'pg_database_stats', 'pressure', 'read_cache', 'write_opt',
                    'filesystem', 'agent_spool', 'sqlserver_stats', 'disk_io_untimed', 'read_cache_holdout', 'read_cache_holdout_bucket'));

-- Skipped inside a gateway group, which queues its ranges itself (20261125120000_group_rollup_queue).
CREATE TRIGGER read_cache_holdout_bucket_queue_rollup AFTER INSERT ON read_cache_holdout_bucket
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT
  WHEN (current_setting('spindle.rollups_queued', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION queue_rollup();

SELECT spindle_protect_tenant_relation('read_cache_holdout_bucket');
SELECT spindle_protect_tenant_relation('read_cache_holdout_bucket_1m');
SELECT spindle_protect_tenant_relation('read_cache_holdout_bucket_1h');
