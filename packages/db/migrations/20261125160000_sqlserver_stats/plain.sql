-- Issue 10 on plain PostgreSQL: the shared part (tables.sql), BRIN and per-server indexes on the
-- raw table, rollup tables of the same names and shape as timescale.sql's continuous aggregates
-- (rates and means from sums and counts; see there), and the trigger that queues every insert
-- for the worker's `rollup` job.

-- spindle:include tables.sql

CREATE INDEX sqlserver_stats_time_brin ON sqlserver_stats USING brin (time);
CREATE INDEX sqlserver_stats_org_server_time_idx ON sqlserver_stats (org_id, server_id, time DESC);

CREATE TABLE sqlserver_stats_1m (
  bucket                 timestamptz      NOT NULL,
  org_id                 text             NOT NULL,
  server_id              uuid             NOT NULL,
  instance               text             NOT NULL,
  interval_seconds       double precision NOT NULL,
  batch_requests         bigint,            -- NULL: no interval of the bucket measured them
  batch_seconds          double precision,  -- the intervals that did
  hit_ratio_sum          double precision,
  hit_ratio_samples      bigint           NOT NULL,
  page_life_expectancy_s bigint           NOT NULL,  -- sum of the samples: divide by samples
  samples                bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, instance)
);
CREATE TABLE sqlserver_stats_1h (LIKE sqlserver_stats_1m INCLUDING ALL);
CREATE INDEX sqlserver_stats_1m_bucket_brin ON sqlserver_stats_1m USING brin (bucket);
CREATE INDEX sqlserver_stats_1h_bucket_brin ON sqlserver_stats_1h USING brin (bucket);

ALTER TABLE rollup_pending DROP CONSTRAINT rollup_pending_source_check;
ALTER TABLE rollup_pending ADD CONSTRAINT rollup_pending_source_check
  CHECK (source IN ('disk_io', 'memory', 'disk_latency', 'disk_split_io', 'page_cache', 'pg_database_stats', 'pressure', 'read_cache', 'write_opt',
                    'filesystem', 'agent_spool', 'sqlserver_stats'));

-- Skipped inside a gateway group, which queues its ranges itself (20261125120000_group_rollup_queue).
CREATE TRIGGER sqlserver_stats_queue_rollup AFTER INSERT ON sqlserver_stats
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT
  WHEN (current_setting('spindle.rollups_queued', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION queue_rollup();

SELECT spindle_protect_tenant_relation('sqlserver_stats');
SELECT spindle_protect_tenant_relation('sqlserver_stats_1m');
SELECT spindle_protect_tenant_relation('sqlserver_stats_1h');
