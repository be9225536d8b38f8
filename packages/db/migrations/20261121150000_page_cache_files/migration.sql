-- The files with the most page-cache accesses in each server's newest reported interval
-- (docs/metrics.md, "Top files"): at most 50 per server, replaced by every batch that carries
-- file points, never kept as history. Hit ratio = 1 - misses / accesses. A plain table on
-- TimescaleDB too: it holds one short list per server, like fragmentation_worst_files.
CREATE TABLE page_cache_top_files (
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  -- the path from an open descriptor, or inode:<dev>:<ino> when no process held the file open
  path             text             NOT NULL,
  accesses         bigint           NOT NULL CHECK (accesses > 0),
  misses           bigint           NOT NULL CHECK (misses >= 0 AND misses <= accesses),
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  seen_at          timestamptz      NOT NULL,  -- the end of the interval the counts cover
  PRIMARY KEY (org_id, server_id, path)
);
