-- Plain PostgreSQL: the raw tables, and the worker's rollup tables, whose aggregates of an
-- unmeasured column are NULL like the continuous aggregates' (apps/worker/src/jobs/rollup-sql.ts).

-- spindle:include raw.sql

ALTER TABLE disk_io_1m
  ALTER COLUMN read_ops DROP NOT NULL,
  ALTER COLUMN write_ops DROP NOT NULL,
  ALTER COLUMN read_bytes DROP NOT NULL,
  ALTER COLUMN write_bytes DROP NOT NULL,
  ALTER COLUMN read_merged DROP NOT NULL,
  ALTER COLUMN write_merged DROP NOT NULL,
  ALTER COLUMN read_time_ms DROP NOT NULL,
  ALTER COLUMN write_time_ms DROP NOT NULL,
  ALTER COLUMN io_time_ms DROP NOT NULL,
  ALTER COLUMN weighted_io_time_ms DROP NOT NULL,
  ALTER COLUMN in_progress_max DROP NOT NULL;
ALTER TABLE disk_io_1h
  ALTER COLUMN read_ops DROP NOT NULL,
  ALTER COLUMN write_ops DROP NOT NULL,
  ALTER COLUMN read_bytes DROP NOT NULL,
  ALTER COLUMN write_bytes DROP NOT NULL,
  ALTER COLUMN read_merged DROP NOT NULL,
  ALTER COLUMN write_merged DROP NOT NULL,
  ALTER COLUMN read_time_ms DROP NOT NULL,
  ALTER COLUMN write_time_ms DROP NOT NULL,
  ALTER COLUMN io_time_ms DROP NOT NULL,
  ALTER COLUMN weighted_io_time_ms DROP NOT NULL,
  ALTER COLUMN in_progress_max DROP NOT NULL;

ALTER TABLE memory_1m
  ALTER COLUMN total_bytes DROP NOT NULL,
  ALTER COLUMN available_bytes DROP NOT NULL,
  ALTER COLUMN free_bytes DROP NOT NULL,
  ALTER COLUMN cached_bytes DROP NOT NULL,
  ALTER COLUMN buffers_bytes DROP NOT NULL,
  ALTER COLUMN dirty_bytes DROP NOT NULL,
  ALTER COLUMN swap_total_bytes DROP NOT NULL,
  ALTER COLUMN swap_free_bytes DROP NOT NULL,
  ALTER COLUMN available_min_bytes DROP NOT NULL;
ALTER TABLE memory_1h
  ALTER COLUMN total_bytes DROP NOT NULL,
  ALTER COLUMN available_bytes DROP NOT NULL,
  ALTER COLUMN free_bytes DROP NOT NULL,
  ALTER COLUMN cached_bytes DROP NOT NULL,
  ALTER COLUMN buffers_bytes DROP NOT NULL,
  ALTER COLUMN dirty_bytes DROP NOT NULL,
  ALTER COLUMN swap_total_bytes DROP NOT NULL,
  ALTER COLUMN swap_free_bytes DROP NOT NULL,
  ALTER COLUMN available_min_bytes DROP NOT NULL;

ALTER TABLE pg_database_stats_1m ALTER COLUMN block_read_time_us DROP NOT NULL;
ALTER TABLE pg_database_stats_1h ALTER COLUMN block_read_time_us DROP NOT NULL;
