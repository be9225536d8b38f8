-- Telemetry on plain PostgreSQL (managed services without TimescaleDB, the embedded default):
-- the same raw tables, BRIN on time for range scans and retention deletes, and rollup tables
-- of the same names and shapes as timescale.sql's continuous aggregates. The worker's `rollup`
-- job fills them from `rollup_pending`, which a trigger on each raw table feeds; its
-- `retention` job deletes old rows (raw 30 days, 1 minute 90 days, 1 hour 2 years).

-- spindle:include tables.sql

-- Rows arrive in time order, so a BRIN index stays tiny and prunes whole block ranges.
CREATE INDEX disk_io_time_brin ON disk_io USING brin (time);
CREATE INDEX memory_time_brin ON memory USING brin (time);
-- Every console, gateway and rollup query names one org and one server, newest first; this
-- also serves lookups by (server_id, time) once the org is known.
CREATE INDEX disk_io_org_server_time_idx ON disk_io (org_id, server_id, time DESC);
CREATE INDEX memory_org_server_time_idx ON memory (org_id, server_id, time DESC);

CREATE TABLE disk_io_1m (
  bucket              timestamptz      NOT NULL,
  org_id              text             NOT NULL,
  server_id           uuid             NOT NULL,
  device              text             NOT NULL,
  interval_seconds    double precision NOT NULL,
  read_ops            bigint           NOT NULL,
  write_ops           bigint           NOT NULL,
  read_bytes          bigint           NOT NULL,
  write_bytes         bigint           NOT NULL,
  read_merged         bigint           NOT NULL,
  write_merged        bigint           NOT NULL,
  read_time_ms        bigint           NOT NULL,
  write_time_ms       bigint           NOT NULL,
  io_time_ms          bigint           NOT NULL,
  weighted_io_time_ms bigint           NOT NULL,
  in_progress_max     integer          NOT NULL,
  samples             bigint           NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket, device)
);
CREATE TABLE disk_io_1h (LIKE disk_io_1m INCLUDING ALL);

CREATE TABLE memory_1m (
  bucket              timestamptz NOT NULL,
  org_id              text        NOT NULL,
  server_id           uuid        NOT NULL,
  total_bytes         bigint      NOT NULL,
  available_bytes     bigint      NOT NULL,
  free_bytes          bigint      NOT NULL,
  cached_bytes        bigint      NOT NULL,
  buffers_bytes       bigint      NOT NULL,
  dirty_bytes         bigint      NOT NULL,
  swap_total_bytes    bigint      NOT NULL,
  swap_free_bytes     bigint      NOT NULL,
  available_min_bytes bigint      NOT NULL,
  samples             bigint      NOT NULL,
  PRIMARY KEY (org_id, server_id, bucket)
);
CREATE TABLE memory_1h (LIKE memory_1m INCLUDING ALL);

CREATE INDEX disk_io_1m_bucket_brin ON disk_io_1m USING brin (bucket);
CREATE INDEX disk_io_1h_bucket_brin ON disk_io_1h USING brin (bucket);
CREATE INDEX memory_1m_bucket_brin ON memory_1m USING brin (bucket);
CREATE INDEX memory_1h_bucket_brin ON memory_1h USING brin (bucket);

-- What the rollup job still has to (re)compute: one row per insert statement and server, with
-- the time span that statement wrote. Late rows (an agent replaying its spool) therefore re-roll
-- exactly the buckets they touch. The job claims rows with FOR UPDATE SKIP LOCKED and deletes
-- them in the transaction that writes the rollups.
CREATE TABLE rollup_pending (
  id         bigserial   PRIMARY KEY,
  source     text        NOT NULL CHECK (source IN ('disk_io', 'memory')),
  org_id     text        NOT NULL,
  server_id  uuid        NOT NULL,
  first_time timestamptz NOT NULL,
  last_time  timestamptz NOT NULL,
  queued_at  timestamptz NOT NULL DEFAULT now()
);

-- Statement-level with a transition table: one cheap insert per COPY or INSERT, however many rows.
CREATE FUNCTION queue_rollup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rollup_pending (source, org_id, server_id, first_time, last_time)
  SELECT TG_TABLE_NAME, org_id, server_id, min(time), max(time)
  FROM inserted_rows
  GROUP BY org_id, server_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER disk_io_queue_rollup AFTER INSERT ON disk_io
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
CREATE TRIGGER memory_queue_rollup AFTER INSERT ON memory
  REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION queue_rollup();
