-- Deep telemetry on plain PostgreSQL: the raw tables of tables.sql with BRIN on time, rollup
-- tables of the same names and shapes as timescale.sql's continuous aggregates, and the same
-- statement-level triggers as 20261121080100_telemetry, so the worker's `rollup` job fills
-- them and its `retention` job ages them out (raw 30 days, 1 minute 90 days, 1 hour 2 years,
-- fragmentation history 2 years).

-- spindle:include tables.sql

CREATE INDEX disk_latency_time_brin ON disk_latency USING brin (time);
CREATE INDEX disk_split_io_time_brin ON disk_split_io USING brin (time);
CREATE INDEX page_cache_time_brin ON page_cache USING brin (time);
CREATE INDEX pg_database_stats_time_brin ON pg_database_stats USING brin (time);
CREATE INDEX pressure_time_brin ON pressure USING brin (time);
CREATE INDEX fragmentation_scans_time_brin ON fragmentation_scans USING brin (time);
CREATE INDEX disk_latency_org_server_time_idx ON disk_latency (org_id, server_id, time DESC);
CREATE INDEX disk_split_io_org_server_time_idx ON disk_split_io (org_id, server_id, time DESC);
CREATE INDEX page_cache_org_server_time_idx ON page_cache (org_id, server_id, time DESC);
CREATE INDEX pg_database_stats_org_server_time_idx ON pg_database_stats (org_id, server_id, time DESC);
CREATE INDEX pressure_org_server_time_idx ON pressure (org_id, server_id, time DESC);
CREATE INDEX fragmentation_scans_org_server_root_time_idx ON fragmentation_scans (org_id, server_id, root, time DESC);

CREATE TABLE disk_latency_1m (
  bucket             timestamptz      NOT NULL,
  org_id             text             NOT NULL,
  server_id          uuid             NOT NULL,
  device             text             NOT NULL,
  operation          text             NOT NULL,
  interval_seconds   double precision NOT NULL,
  operations         bigint           NOT NULL,
  sum_seconds        double precision NOT NULL,
  bucket_00          bigint           NOT NULL,
  bucket_01          bigint           NOT NULL,
  bucket_02          bigint           NOT NULL,
  bucket_03          bigint           NOT NULL,
  bucket_04          bigint           NOT NULL,
  bucket_05          bigint           NOT NULL,
  bucket_06          bigint           NOT NULL,
  bucket_07          bigint           NOT NULL,
  bucket_08          bigint           NOT NULL,
  bucket_09          bigint           NOT NULL,
  bucket_10          bigint           NOT NULL,
  bucket_11          bigint           NOT NULL,
  bucket_12          bigint           NOT NULL,
  bucket_13          bigint           NOT NULL,
  bucket_14          bigint           NOT NULL,
  bucket_15          bigint           NOT NULL,
  bucket_16          bigint           NOT NULL,
  bucket_17          bigint           NOT NULL,
  bucket_18          bigint           NOT NULL,
  bucket_19          bigint           NOT NULL,
  bucket_20          bigint           NOT NULL,
  bucket_21          bigint           NOT NULL,
  bucket_22          bigint           NOT NULL,
  bucket_23          bigint           NOT NULL,
  bucket_24          bigint           NOT NULL,
  bucket_25          bigint           NOT NULL,
  bucket_26          bigint           NOT NULL,
  bucket_27          bigint           NOT NULL,
  samples            bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, device, operation)
);
CREATE TABLE disk_latency_1h (LIKE disk_latency_1m INCLUDING ALL);
CREATE INDEX disk_latency_1m_bucket_brin ON disk_latency_1m USING brin (bucket);
CREATE INDEX disk_latency_1h_bucket_brin ON disk_latency_1h USING brin (bucket);

CREATE TABLE disk_split_io_1m (
  bucket             timestamptz      NOT NULL,
  org_id             text             NOT NULL,
  server_id          uuid             NOT NULL,
  device             text             NOT NULL,
  interval_seconds   double precision NOT NULL,
  split_ops          bigint           NOT NULL,
  samples            bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, device)
);
CREATE TABLE disk_split_io_1h (LIKE disk_split_io_1m INCLUDING ALL);
CREATE INDEX disk_split_io_1m_bucket_brin ON disk_split_io_1m USING brin (bucket);
CREATE INDEX disk_split_io_1h_bucket_brin ON disk_split_io_1h USING brin (bucket);

CREATE TABLE page_cache_1m (
  bucket             timestamptz      NOT NULL,
  org_id             text             NOT NULL,
  server_id          uuid             NOT NULL,
  interval_seconds   double precision NOT NULL,
  accesses           bigint           NOT NULL,
  misses             bigint           NOT NULL,
  samples            bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket)
);
CREATE TABLE page_cache_1h (LIKE page_cache_1m INCLUDING ALL);
CREATE INDEX page_cache_1m_bucket_brin ON page_cache_1m USING brin (bucket);
CREATE INDEX page_cache_1h_bucket_brin ON page_cache_1h USING brin (bucket);

CREATE TABLE pg_database_stats_1m (
  bucket             timestamptz      NOT NULL,
  org_id             text             NOT NULL,
  server_id          uuid             NOT NULL,
  database           text             NOT NULL,
  interval_seconds   double precision NOT NULL,
  commits            bigint           NOT NULL,
  rollbacks          bigint           NOT NULL,
  blocks_hit         bigint           NOT NULL,
  blocks_read        bigint           NOT NULL,
  block_read_time_us bigint           NOT NULL,
  samples            bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, database)
);
CREATE TABLE pg_database_stats_1h (LIKE pg_database_stats_1m INCLUDING ALL);
CREATE INDEX pg_database_stats_1m_bucket_brin ON pg_database_stats_1m USING brin (bucket);
CREATE INDEX pg_database_stats_1h_bucket_brin ON pg_database_stats_1h USING brin (bucket);

CREATE TABLE pressure_1m (
  bucket             timestamptz      NOT NULL,
  org_id             text             NOT NULL,
  server_id          uuid             NOT NULL,
  interval_seconds   double precision NOT NULL,
  memory_some_us     bigint,
  memory_full_us     bigint,
  io_some_us         bigint,
  io_full_us         bigint,
  samples            bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket)
);
CREATE TABLE pressure_1h (LIKE pressure_1m INCLUDING ALL);
CREATE INDEX pressure_1m_bucket_brin ON pressure_1m USING brin (bucket);
CREATE INDEX pressure_1h_bucket_brin ON pressure_1h USING brin (bucket);

-- The rollup queue takes the new sources too (queue_rollup() records TG_TABLE_NAME).
ALTER TABLE rollup_pending DROP CONSTRAINT rollup_pending_source_check;
ALTER TABLE rollup_pending ADD CONSTRAINT rollup_pending_source_check
  CHECK (source IN ('disk_io', 'memory', 'disk_latency', 'disk_split_io', 'page_cache', 'pg_database_stats', 'pressure'));

CREATE TRIGGER disk_latency_queue_rollup AFTER INSERT ON disk_latency
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
CREATE TRIGGER disk_split_io_queue_rollup AFTER INSERT ON disk_split_io
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
CREATE TRIGGER page_cache_queue_rollup AFTER INSERT ON page_cache
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
CREATE TRIGGER pg_database_stats_queue_rollup AFTER INSERT ON pg_database_stats
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
CREATE TRIGGER pressure_queue_rollup AFTER INSERT ON pressure
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
