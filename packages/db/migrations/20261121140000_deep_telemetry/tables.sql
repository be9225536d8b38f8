-- Deep Linux telemetry (docs/metrics.md): eBPF latency histograms, split I/O, page-cache hits,
-- fragmentation scans, PostgreSQL database statistics and pressure stall time, plus what each
-- agent reports it can measure. Shared by timescale.sql and plain.sql. Counters are deltas over
-- the sampling interval (as in disk_io), so every coarser bucket is an exact sum.

-- Block I/O latency per device and operation: one row per (device, operation) and interval,
-- with the 28 log2 buckets of spindle.disk.io.latency as columns. bucket_NN counts I/Os whose
-- latency lies in (2^(NN-1), 2^NN] microseconds (bucket_00: up to 1 µs; bucket_27: above
-- 2^26 µs = 67 s). Wide columns sum in any aggregate, so percentiles over any range are
-- computed from merged counts, never by averaging percentiles.
CREATE TABLE disk_latency (
  time             timestamptz      NOT NULL,  -- end of the sampling interval
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  device           text             NOT NULL,
  -- read or write (disk.io.direction), or flush / discard (spindle.disk.operation)
  operation        text             NOT NULL CHECK (operation IN ('read', 'write', 'flush', 'discard')),
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  operations       bigint           NOT NULL,  -- the histogram's count: I/Os completed
  sum_seconds      double precision NOT NULL,  -- total latency of those I/Os (exact)
  bucket_00        bigint           NOT NULL,
  bucket_01        bigint           NOT NULL,
  bucket_02        bigint           NOT NULL,
  bucket_03        bigint           NOT NULL,
  bucket_04        bigint           NOT NULL,
  bucket_05        bigint           NOT NULL,
  bucket_06        bigint           NOT NULL,
  bucket_07        bigint           NOT NULL,
  bucket_08        bigint           NOT NULL,
  bucket_09        bigint           NOT NULL,
  bucket_10        bigint           NOT NULL,
  bucket_11        bigint           NOT NULL,
  bucket_12        bigint           NOT NULL,
  bucket_13        bigint           NOT NULL,
  bucket_14        bigint           NOT NULL,
  bucket_15        bigint           NOT NULL,
  bucket_16        bigint           NOT NULL,
  bucket_17        bigint           NOT NULL,
  bucket_18        bigint           NOT NULL,
  bucket_19        bigint           NOT NULL,
  bucket_20        bigint           NOT NULL,
  bucket_21        bigint           NOT NULL,
  bucket_22        bigint           NOT NULL,
  bucket_23        bigint           NOT NULL,
  bucket_24        bigint           NOT NULL,
  bucket_25        bigint           NOT NULL,
  bucket_26        bigint           NOT NULL,
  bucket_27        bigint           NOT NULL,
  CHECK (operations = bucket_00 + bucket_01 + bucket_02 + bucket_03 + bucket_04 + bucket_05 + bucket_06 + bucket_07 + bucket_08 + bucket_09 + bucket_10 + bucket_11 + bucket_12 + bucket_13 + bucket_14 + bucket_15 + bucket_16 + bucket_17 + bucket_18 + bucket_19 + bucket_20 + bucket_21 + bucket_22 + bucket_23 + bucket_24 + bucket_25 + bucket_26 + bucket_27)
);

-- Bios the block layer split (block:block_split), per device. A separate table rather than a
-- column of disk_io: disk_io's continuous aggregates cannot gain a column without being
-- dropped, and a dropped aggregate loses every bucket older than the raw retention. No row
-- for an interval means not measured (no eBPF), never zero.
CREATE TABLE disk_split_io (
  time             timestamptz      NOT NULL,
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  device           text             NOT NULL,
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  split_ops        bigint           NOT NULL CHECK (split_ops >= 0)
);

-- Page-cache accesses and misses, system-wide: hit ratio = 1 - sum(misses) / sum(accesses).
CREATE TABLE page_cache (
  time             timestamptz      NOT NULL,
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  accesses         bigint           NOT NULL CHECK (accesses >= 0),
  misses           bigint           NOT NULL CHECK (misses >= 0)
);

-- Fragmentation: the result of each scan of one root, stored only when it differs from the
-- root's previous result (the agent repeats the last complete scan every interval), so the
-- history holds one row per change. The console shows the newest row per root.
CREATE TABLE fragmentation_scans (
  time             timestamptz NOT NULL,  -- when the gateway first saw this result
  org_id           text        NOT NULL,
  server_id        uuid        NOT NULL,
  root             text        NOT NULL,
  files            bigint      NOT NULL,
  fragmented_files bigint      NOT NULL,
  extents          bigint      NOT NULL,
  excess_extents   bigint      NOT NULL,
  -- files the scan skipped because their file system cannot map extents; NULL: not reported
  unsupported_files bigint,
  scan_duration_ms bigint      NOT NULL
);

-- The worst files of each root's latest scan (at most 10 per root): replaced whenever the
-- agent reports a different list, never kept as history.
CREATE TABLE fragmentation_worst_files (
  org_id     text        NOT NULL,
  server_id  uuid        NOT NULL,
  root       text        NOT NULL,
  path       text        NOT NULL,
  extents    bigint      NOT NULL,
  size_bytes bigint      NOT NULL,
  seen_at    timestamptz NOT NULL,
  PRIMARY KEY (org_id, server_id, root, path)
);

-- PostgreSQL pg_stat_database per database: TPS = sum(commits) / sum(interval_seconds), buffer
-- hit ratio = sum(blocks_hit) / (sum(blocks_hit) + sum(blocks_read)).
CREATE TABLE pg_database_stats (
  time               timestamptz      NOT NULL,
  org_id             text             NOT NULL,
  server_id          uuid             NOT NULL,
  database           text             NOT NULL,
  interval_seconds   double precision NOT NULL CHECK (interval_seconds > 0),
  commits            bigint           NOT NULL,
  rollbacks          bigint           NOT NULL,
  blocks_hit         bigint           NOT NULL,
  blocks_read        bigint           NOT NULL,
  block_read_time_us bigint           NOT NULL  -- 0 unless track_io_timing is on
);

-- Pressure stall time (/proc/pressure): microseconds some (or all) tasks stalled in the
-- interval; stall share = stall / interval. NULL: the kernel did not report that line.
CREATE TABLE pressure (
  time             timestamptz      NOT NULL,
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  memory_some_us   bigint,
  memory_full_us   bigint,
  io_some_us       bigint,
  io_full_us       bigint
);

-- What the agent reports it can measure (resource attribute spindle.agent.capabilities, e.g.
-- ebpf.block_latency), as of its newest batch. Separate from agents.capabilities, which holds
-- what the agent announces over OpAMP. telemetry_capabilities_at is NULL until the first batch
-- that carried the attribute (an older agent never sends it: unknown, not "nothing works").
ALTER TABLE agents ADD COLUMN telemetry_capabilities text[] NOT NULL DEFAULT '{}';
ALTER TABLE agents ADD COLUMN telemetry_capabilities_at timestamptz;
