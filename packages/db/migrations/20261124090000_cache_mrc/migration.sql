-- Miss-ratio curves (issue 9, docs/metrics.md "Miss-ratio curves"): for each server, the hit
-- ratio an LRU cache of each size would have had on the host's own access stream over a window,
-- as the agent computed it from a SHARDS spatial sample. One row per curve and window; a plain
-- table in both time-series modes (a curve is a few hundred numbers every few minutes, not a
-- stream), aged out by the worker's retention job after 90 days.
--
-- curve: what stream the curve describes
--   page_cache  every page-cache access on the host (unit: 4 KiB pages)
--   read_cache  the accesses inside one read-cache scope of the policy (scope = the scope's name)
--   block       the block I/O below the page cache, the what-if for a flash tier (scope = device)

CREATE TABLE cache_mrc (
  org_id            text             NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id         uuid             NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
  time              timestamptz      NOT NULL,  -- end of the window the curve describes
  window_seconds    double precision NOT NULL CHECK (window_seconds > 0),
  curve             text             NOT NULL CHECK (curve IN ('page_cache', 'read_cache', 'block')),
  scope             text             NOT NULL DEFAULT '' CHECK (length(scope) <= 255),
  -- the sampling rate the curve was built at (fixed-size SHARDS lowers it as the sample grows)
  -- and the sampled accesses it rests on; hit ratios are of all accesses, scaled back by the rate
  sample_rate       double precision NOT NULL CHECK (sample_rate > 0 AND sample_rate <= 1),
  sampled_accesses  bigint           NOT NULL CHECK (sampled_accesses >= 0),
  -- cache sizes in bytes, strictly ascending, and the hit ratio in [0, 1] at each size
  sizes_bytes       bigint[]         NOT NULL,
  hit_ratios        double precision[] NOT NULL,
  CHECK (cardinality(sizes_bytes) = cardinality(hit_ratios) AND cardinality(sizes_bytes) BETWEEN 1 AND 1024),
  PRIMARY KEY (org_id, server_id, curve, scope, time)
);

CREATE INDEX cache_mrc_server_time_idx ON cache_mrc (org_id, server_id, time DESC);

SELECT spindle_protect_tenant_relation('cache_mrc');
