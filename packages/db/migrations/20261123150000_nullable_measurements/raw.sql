-- A metric the agent did not send is stored as NULL (not measured), never as 0 (issue 11,
-- defect 6): an OS without merge counters, a kernel without swap, PostgreSQL without
-- track_io_timing, a fragmentation scan that did not report its duration. Aggregates already
-- treat NULL as absent (sum, avg, min and max skip it; a bucket with no value stays NULL).
-- Shared by timescale.sql and plain.sql.

ALTER TABLE disk_io
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
  ALTER COLUMN in_progress DROP NOT NULL;

ALTER TABLE memory
  ALTER COLUMN total_bytes DROP NOT NULL,
  ALTER COLUMN available_bytes DROP NOT NULL,
  ALTER COLUMN free_bytes DROP NOT NULL,
  ALTER COLUMN cached_bytes DROP NOT NULL,
  ALTER COLUMN buffers_bytes DROP NOT NULL,
  ALTER COLUMN dirty_bytes DROP NOT NULL,
  ALTER COLUMN swap_total_bytes DROP NOT NULL,
  ALTER COLUMN swap_free_bytes DROP NOT NULL;

ALTER TABLE pg_database_stats ALTER COLUMN block_read_time_us DROP NOT NULL;

ALTER TABLE fragmentation_scans ALTER COLUMN scan_duration_ms DROP NOT NULL;
