-- The read cache's control group (issue 21, docs/gains.md "Read cache: what it caused",
-- docs/metrics.md "Acceleration features"): per server and interval, the page accesses and the
-- pages read from storage of the managed pages and of the control group (the hash-drawn share
-- of them the read cache leaves alone), the pages the cache read itself, and the first hits on
-- them. Shared by plain.sql and timescale.sql.
--
-- A table of its own next to read_cache rather than columns of it: read_cache's continuous
-- aggregates cannot gain a column without being dropped, and a dropped aggregate loses every
-- bucket older than the raw retention.
--
-- The agent sends the seven metrics together, in every interval in which it counted the two
-- groups (Linux with the page-cache eBPF program, the read cache on); a row with holdout_percent
-- 0 is an interval whose policy held nothing out (its control columns are then 0). No row means
-- not measured, never 0.
CREATE TABLE read_cache_holdout (
  time                    timestamptz      NOT NULL,  -- end of the sampling interval
  org_id                  text             NOT NULL,
  server_id               uuid             NOT NULL,
  interval_seconds        double precision NOT NULL CHECK (interval_seconds > 0),
  holdout_percent         bigint CHECK (holdout_percent BETWEEN 0 AND 100),     -- gauge
  managed_accessed_bytes  bigint CHECK (managed_accessed_bytes >= 0),           -- delta
  managed_missed_bytes    bigint CHECK (managed_missed_bytes >= 0),             -- delta
  control_accessed_bytes  bigint CHECK (control_accessed_bytes >= 0),           -- delta
  control_missed_bytes    bigint CHECK (control_missed_bytes >= 0),             -- delta
  own_read_bytes          bigint CHECK (own_read_bytes >= 0),                   -- delta
  own_page_hit_bytes      bigint CHECK (own_page_hit_bytes >= 0)                -- delta
);
