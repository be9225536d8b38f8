-- Acceleration gains (issue 7, docs/metrics.md "Acceleration features"): the read cache's and
-- write optimisation's own statistics per server and interval, and each server's newest list
-- of managed-file extents. Shared by timescale.sql and plain.sql. Every metric column is
-- NULLABLE: NULL means the agent did not send that metric in the interval (not measured),
-- never zero. Flows are deltas over the interval (sum to any range); stocks are gauges at the
-- end of the interval.

CREATE TABLE read_cache (
  time                         timestamptz      NOT NULL,  -- end of the sampling interval
  org_id                       text             NOT NULL,
  server_id                    uuid             NOT NULL,
  interval_seconds             double precision NOT NULL CHECK (interval_seconds > 0),
  budget_bytes                 bigint CHECK (budget_bytes >= 0),          -- gauge
  resident_bytes               bigint CHECK (resident_bytes >= 0),        -- gauge
  pinned_bytes                 bigint CHECK (pinned_bytes >= 0),          -- gauge
  managed_files                bigint CHECK (managed_files >= 0),         -- gauge
  hits_bytes                   bigint CHECK (hits_bytes >= 0),            -- delta
  misses_bytes                 bigint CHECK (misses_bytes >= 0),          -- delta
  prefetched_bytes             bigint CHECK (prefetched_bytes >= 0),      -- delta
  dropped_behind_bytes         bigint CHECK (dropped_behind_bytes >= 0),  -- delta
  backoffs                     bigint CHECK (backoffs >= 0),              -- delta
  -- the agent's latest calibrated mean of one 4 KiB page-cache read, and the reads it rests on
  memory_read_latency_seconds  double precision CHECK (memory_read_latency_seconds > 0),
  memory_read_latency_samples  bigint CHECK (memory_read_latency_samples > 0),
  CHECK ((memory_read_latency_seconds IS NULL) = (memory_read_latency_samples IS NULL))
);

CREATE TABLE write_opt (
  time                     timestamptz      NOT NULL,
  org_id                   text             NOT NULL,
  server_id                uuid             NOT NULL,
  interval_seconds         double precision NOT NULL CHECK (interval_seconds > 0),
  preallocated_bytes       bigint CHECK (preallocated_bytes >= 0),
  fragments_prevented      bigint CHECK (fragments_prevented >= 0),
  files_defragmented       bigint CHECK (files_defragmented >= 0),
  -- growth of files a rule manages, and of growing files in the same watched directories that
  -- no rule matches (the comparison group): extents added per byte grown, with and without
  managed_grown_bytes      bigint CHECK (managed_grown_bytes >= 0),
  managed_extents_added    bigint CHECK (managed_extents_added >= 0),
  unmanaged_grown_bytes    bigint CHECK (unmanaged_grown_bytes >= 0),
  unmanaged_extents_added  bigint CHECK (unmanaged_extents_added >= 0)
);

-- Extents of each managed file (at most 20 per server, most fragmented first) as of the newest
-- batch that carried the list: replaced by every such batch, never kept as history (like
-- page_cache_top_files). A plain table in both modes.
CREATE TABLE write_opt_files (
  org_id     text        NOT NULL,
  server_id  uuid        NOT NULL,
  path       text        NOT NULL,
  extents    bigint      NOT NULL CHECK (extents >= 0),
  seen_at    timestamptz NOT NULL,  -- the end of the interval the list describes
  PRIMARY KEY (org_id, server_id, path)
);
