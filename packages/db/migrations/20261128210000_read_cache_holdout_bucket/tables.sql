-- The read cache's control group per hash bucket of page groups (issue 21, docs/gains.md "Read
-- cache: what it caused", docs/metrics.md "Acceleration features"): per server, interval and
-- bucket, the page accesses and the pages read from storage of the managed pages and of the
-- control group. The agent hashes each 2 MiB page group a second time, independently of the
-- control draw, into one of 16 buckets, and sends all 16 in every interval in which a control is
-- drawn; the console leaves one bucket out at a time to see how much the draw itself moves the
-- caused estimate. Shared by plain.sql and timescale.sql.
--
-- A table of its own next to read_cache_holdout: one row per bucket, and read_cache_holdout's
-- continuous aggregates cannot gain a key without being dropped. Its time buckets are called
-- `bucket` like every aggregate's, so the hash bucket is `hash_bucket`.
--
-- No row means not measured (an agent older than this table, or no control drawn), never 0.
CREATE TABLE read_cache_holdout_bucket (
  time                    timestamptz      NOT NULL,  -- end of the sampling interval
  org_id                  text             NOT NULL,
  server_id               uuid             NOT NULL,
  hash_bucket             smallint         NOT NULL CHECK (hash_bucket BETWEEN 0 AND 15),
  interval_seconds        double precision NOT NULL CHECK (interval_seconds > 0),
  managed_accessed_bytes  bigint           NOT NULL CHECK (managed_accessed_bytes >= 0),  -- delta
  managed_missed_bytes    bigint           NOT NULL CHECK (managed_missed_bytes >= 0),    -- delta
  control_accessed_bytes  bigint           NOT NULL CHECK (control_accessed_bytes >= 0),  -- delta
  control_missed_bytes    bigint           NOT NULL CHECK (control_missed_bytes >= 0)     -- delta
);
