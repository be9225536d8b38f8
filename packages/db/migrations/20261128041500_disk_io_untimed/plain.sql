-- spindle.disk.io.untimed on plain PostgreSQL: the shared table (tables.sql) with BRIN and
-- per-server indexes, rollup tables of the same names and shape as timescale.sql's continuous
-- aggregates (sums, keyed like disk_latency's), and the trigger that queues every insert for the
-- worker's `rollup` job (apps/worker/src/jobs/rollup-sql.ts); the `retention` job ages them out.

-- spindle:include tables.sql

CREATE INDEX disk_io_untimed_time_brin ON disk_io_untimed USING brin (time);
CREATE INDEX disk_io_untimed_org_server_time_idx ON disk_io_untimed (org_id, server_id, time DESC);

CREATE TABLE disk_io_untimed_1m (
  bucket           timestamptz      NOT NULL,
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  device           text             NOT NULL,
  operation        text             NOT NULL,
  interval_seconds double precision NOT NULL,
  untimed_ops      bigint           NOT NULL,
  samples          bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, device, operation)
);
CREATE TABLE disk_io_untimed_1h (LIKE disk_io_untimed_1m INCLUDING ALL);
CREATE INDEX disk_io_untimed_1m_bucket_brin ON disk_io_untimed_1m USING brin (bucket);
CREATE INDEX disk_io_untimed_1h_bucket_brin ON disk_io_untimed_1h USING brin (bucket);

ALTER TABLE rollup_pending DROP CONSTRAINT rollup_pending_source_check;
ALTER TABLE rollup_pending ADD CONSTRAINT rollup_pending_source_check
  CHECK (source IN ('disk_io', 'memory', 'disk_latency', 'disk_split_io', 'page_cache', 'pg_database_stats', 'pressure', 'read_cache', 'write_opt',
                    'filesystem', 'agent_spool', 'sqlserver_stats', 'disk_io_untimed'));

-- Skipped inside a gateway group, which queues its ranges itself (20261125120000_group_rollup_queue).
CREATE TRIGGER disk_io_untimed_queue_rollup AFTER INSERT ON disk_io_untimed
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT
  WHEN (current_setting('spindle.rollups_queued', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION queue_rollup();

SELECT spindle_protect_tenant_relation('disk_io_untimed');
SELECT spindle_protect_tenant_relation('disk_io_untimed_1m');
SELECT spindle_protect_tenant_relation('disk_io_untimed_1h');
