-- Issue 8 on plain PostgreSQL: the shared part (tables.sql), BRIN and per-server indexes on the
-- raw tables, rollup tables of the same names and shapes as timescale.sql's continuous
-- aggregates, and triggers that queue every insert for the worker's `rollup` job. Every rollup
-- column is a sum or a count, so a gauge's mean over any window is <column> / samples.

-- spindle:include tables.sql

CREATE INDEX filesystem_time_brin ON filesystem USING brin (time);
CREATE INDEX agent_spool_time_brin ON agent_spool USING brin (time);
CREATE INDEX filesystem_org_server_time_idx ON filesystem (org_id, server_id, time DESC);
CREATE INDEX agent_spool_org_server_time_idx ON agent_spool (org_id, server_id, time DESC);

CREATE TABLE filesystem_1m (
  bucket           timestamptz      NOT NULL,
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  mountpoint       text             NOT NULL,
  device           text             NOT NULL,
  interval_seconds double precision NOT NULL,
  size_bytes       bigint           NOT NULL,  -- sums of the samples: divide by samples
  free_bytes       bigint           NOT NULL,
  available_bytes  bigint           NOT NULL,
  samples          bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, mountpoint, device)
);
CREATE TABLE filesystem_1h (LIKE filesystem_1m INCLUDING ALL);
CREATE INDEX filesystem_1m_bucket_brin ON filesystem_1m USING brin (bucket);
CREATE INDEX filesystem_1h_bucket_brin ON filesystem_1h USING brin (bucket);

CREATE TABLE agent_spool_1m (
  bucket           timestamptz      NOT NULL,
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  interval_seconds double precision NOT NULL,
  spool_bytes      bigint           NOT NULL,  -- sums of the samples: divide by samples
  pending_batches  bigint           NOT NULL,
  samples          bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket)
);
CREATE TABLE agent_spool_1h (LIKE agent_spool_1m INCLUDING ALL);
CREATE INDEX agent_spool_1m_bucket_brin ON agent_spool_1m USING brin (bucket);
CREATE INDEX agent_spool_1h_bucket_brin ON agent_spool_1h USING brin (bucket);

ALTER TABLE rollup_pending DROP CONSTRAINT rollup_pending_source_check;
ALTER TABLE rollup_pending ADD CONSTRAINT rollup_pending_source_check
  CHECK (source IN ('disk_io', 'memory', 'disk_latency', 'disk_split_io', 'page_cache', 'pg_database_stats', 'pressure', 'read_cache', 'write_opt',
                    'filesystem', 'agent_spool'));

CREATE TRIGGER filesystem_queue_rollup AFTER INSERT ON filesystem
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
CREATE TRIGGER agent_spool_queue_rollup AFTER INSERT ON agent_spool
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();

SELECT spindle_protect_tenant_relation('filesystem');
SELECT spindle_protect_tenant_relation('agent_spool');
SELECT spindle_protect_tenant_relation('filesystem_1m');
SELECT spindle_protect_tenant_relation('filesystem_1h');
SELECT spindle_protect_tenant_relation('agent_spool_1m');
SELECT spindle_protect_tenant_relation('agent_spool_1h');
