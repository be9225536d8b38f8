-- The per-bucket rollup tables (20261128210000_read_cache_holdout_bucket) were made with nullable
-- sums, although they sum NOT NULL counters and the worker never writes a NULL there. The family
-- declaration (packages/domain/metrics/catalogue.json) builds every rollup of a NOT NULL counter
-- NOT NULL; this brings the two plain-mode tables to what the declaration says.
ALTER TABLE read_cache_holdout_bucket_1m
  ALTER COLUMN managed_accessed_bytes SET NOT NULL,
  ALTER COLUMN managed_missed_bytes SET NOT NULL,
  ALTER COLUMN control_accessed_bytes SET NOT NULL,
  ALTER COLUMN control_missed_bytes SET NOT NULL;
ALTER TABLE read_cache_holdout_bucket_1h
  ALTER COLUMN managed_accessed_bytes SET NOT NULL,
  ALTER COLUMN managed_missed_bytes SET NOT NULL,
  ALTER COLUMN control_accessed_bytes SET NOT NULL,
  ALTER COLUMN control_missed_bytes SET NOT NULL;
