-- The 24 h chart reads one server's 1-minute buckets: 1,440 per device. The rollup job writes
-- every server's buckets of a minute together, so on a fleet of 1,000 servers each of those rows
-- sits on its own heap page and a chart paid one page read per row (5,760 for 4 devices). The
-- primary keys carry the columns the chart sums (apps/console series-sql.ts), so the chart is an
-- index-only scan over a few dozen adjacent leaf pages. Same key, so the rollup job's
-- ON CONFLICT (org_id, server_id, bucket, device) is unchanged. docs/benchmarks.md, "Console at
-- fleet scale", has the measurements; the 1-hour tables hold 60 times fewer rows and are left as they are.
-- Rebuilding a key locks the table against the rollup job while it runs (about 3 minutes for
-- 6.4 million rows on a busy 2-core machine); rollups queue in rollup_pending meanwhile, nothing is lost.

ALTER TABLE disk_io_1m
  DROP CONSTRAINT disk_io_1m_pkey,
  ADD CONSTRAINT disk_io_1m_pkey PRIMARY KEY (org_id, server_id, bucket, device)
    INCLUDE (interval_seconds, read_ops, write_ops, read_bytes, write_bytes, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms);

ALTER TABLE memory_1m
  DROP CONSTRAINT memory_1m_pkey,
  ADD CONSTRAINT memory_1m_pkey PRIMARY KEY (org_id, server_id, bucket)
    INCLUDE (total_bytes, available_bytes, cached_bytes, dirty_bytes, samples);
