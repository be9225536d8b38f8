-- Acceleration gains on plain PostgreSQL: the raw tables of tables.sql with BRIN on time,
-- rollup tables of the same names and shapes as timescale.sql's continuous aggregates, and
-- statement-level triggers that queue every insert for the worker's `rollup` job (its
-- `retention` job ages them out: raw 30 days, 1 minute 90 days, 1 hour 2 years). write_opt_files
-- is a plain table in both modes (tables.sql).

-- spindle:include tables.sql

CREATE INDEX read_cache_time_brin ON read_cache USING brin (time);
CREATE INDEX write_opt_time_brin ON write_opt USING brin (time);
CREATE INDEX read_cache_org_server_time_idx ON read_cache (org_id, server_id, time DESC);
CREATE INDEX write_opt_org_server_time_idx ON write_opt (org_id, server_id, time DESC);

CREATE TABLE read_cache_1m (
  bucket                                timestamptz      NOT NULL,
  org_id                                text             NOT NULL,
  server_id                             uuid             NOT NULL,
  interval_seconds                      double precision NOT NULL,
  budget_bytes_sum                      bigint          ,
  budget_bytes_samples                  bigint           NOT NULL,
  resident_bytes_sum                    bigint          ,
  resident_bytes_samples                bigint           NOT NULL,
  pinned_bytes_sum                      bigint          ,
  pinned_bytes_samples                  bigint           NOT NULL,
  managed_files_sum                     bigint          ,
  managed_files_samples                 bigint           NOT NULL,
  hits_bytes                            bigint          ,
  misses_bytes                          bigint          ,
  prefetched_bytes                      bigint          ,
  dropped_behind_bytes                  bigint          ,
  backoffs                              bigint          ,
  memory_read_latency_weighted_seconds  double precision,
  memory_read_latency_samples           bigint          ,
  samples                               bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket)
);
CREATE TABLE read_cache_1h (LIKE read_cache_1m INCLUDING ALL);
CREATE INDEX read_cache_1m_bucket_brin ON read_cache_1m USING brin (bucket);
CREATE INDEX read_cache_1h_bucket_brin ON read_cache_1h USING brin (bucket);

CREATE TABLE write_opt_1m (
  bucket                                timestamptz      NOT NULL,
  org_id                                text             NOT NULL,
  server_id                             uuid             NOT NULL,
  interval_seconds                      double precision NOT NULL,
  preallocated_bytes                    bigint          ,
  fragments_prevented                   bigint          ,
  files_defragmented                    bigint          ,
  managed_grown_bytes                   bigint          ,
  managed_extents_added                 bigint          ,
  unmanaged_grown_bytes                 bigint          ,
  unmanaged_extents_added               bigint          ,
  samples                               bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket)
);
CREATE TABLE write_opt_1h (LIKE write_opt_1m INCLUDING ALL);
CREATE INDEX write_opt_1m_bucket_brin ON write_opt_1m USING brin (bucket);
CREATE INDEX write_opt_1h_bucket_brin ON write_opt_1h USING brin (bucket);

-- The rollup queue takes the new sources too (queue_rollup() records TG_TABLE_NAME).
ALTER TABLE rollup_pending DROP CONSTRAINT rollup_pending_source_check;
ALTER TABLE rollup_pending ADD CONSTRAINT rollup_pending_source_check
  CHECK (source IN ('disk_io', 'memory', 'disk_latency', 'disk_split_io', 'page_cache', 'pg_database_stats', 'pressure', 'read_cache', 'write_opt'));

CREATE TRIGGER read_cache_queue_rollup AFTER INSERT ON read_cache
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
CREATE TRIGGER write_opt_queue_rollup AFTER INSERT ON write_opt
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
