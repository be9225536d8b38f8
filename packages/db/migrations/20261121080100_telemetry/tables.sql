-- Raw telemetry, one wide row per sample. Counters are stored as per-interval deltas
-- (OTLP delta temporality) so that any bucket's rate is exact: sum(delta) / sum(interval_seconds).
-- Shared by timescale.sql and plain.sql through the runner's "-- spindle:include tables.sql".

CREATE TABLE disk_io (
  time                timestamptz      NOT NULL,  -- end of the sampling interval
  org_id              text             NOT NULL,
  server_id           uuid             NOT NULL,
  device              text             NOT NULL,
  interval_seconds    double precision NOT NULL CHECK (interval_seconds > 0),
  read_ops            bigint           NOT NULL,
  write_ops           bigint           NOT NULL,
  read_bytes          bigint           NOT NULL,
  write_bytes         bigint           NOT NULL,
  read_merged         bigint           NOT NULL,
  write_merged        bigint           NOT NULL,
  read_time_ms        bigint           NOT NULL,  -- time spent on completed reads
  write_time_ms       bigint           NOT NULL,
  io_time_ms          bigint           NOT NULL,  -- time the device had I/O in flight (utilisation)
  weighted_io_time_ms bigint           NOT NULL,  -- integral of queue length over time (avg queue depth)
  in_progress         integer          NOT NULL   -- I/Os in flight at sampling time
);

CREATE TABLE memory (
  time             timestamptz NOT NULL,
  org_id           text        NOT NULL,
  server_id        uuid        NOT NULL,
  total_bytes      bigint      NOT NULL,
  available_bytes  bigint      NOT NULL,
  free_bytes       bigint      NOT NULL,
  cached_bytes     bigint      NOT NULL,  -- page cache
  buffers_bytes    bigint      NOT NULL,
  dirty_bytes      bigint      NOT NULL,
  swap_total_bytes bigint      NOT NULL,
  swap_free_bytes  bigint      NOT NULL
);
