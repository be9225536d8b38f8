-- The 24 h chart reads one server's 1-minute buckets: 1,440 per device. Continuous aggregates
-- materialise every server's buckets of a minute together, so on a fleet of 1,000 servers each
-- of those rows sits on its own heap page, and the aggregate's own indexes are one column plus
-- bucket ((server_id, bucket DESC) …). These indexes carry the columns the chart sums (apps/console
-- series-sql.ts), so the materialised part of the chart is an index-only scan over a few dozen
-- adjacent leaf pages. plain.sql does the same with the rollup tables' primary keys;
-- docs/benchmarks.md, "Console at fleet scale", has the measurements. Building an index blocks
-- refreshes of that aggregate while it runs; they catch up afterwards.

CREATE INDEX disk_io_1m_chart_idx ON disk_io_1m (org_id, server_id, bucket, device)
  INCLUDE (interval_seconds, read_ops, write_ops, read_bytes, write_bytes, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms);

CREATE INDEX memory_1m_chart_idx ON memory_1m (org_id, server_id, bucket)
  INCLUDE (total_bytes, available_bytes, cached_bytes, dirty_bytes, samples);
