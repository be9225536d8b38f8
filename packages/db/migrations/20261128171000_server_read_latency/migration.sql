-- Each server's storage reads over the last hour as one merged latency histogram: what the fleet
-- page's p99 figures (per server and per group of servers) are read from (issue 27). Merging an
-- hour of 1-minute histograms for a whole fleet on every page view read 240,000 rows per 1,000
-- servers; the worker (job read_latency_summary, every 5 minutes, both time-series modes) merges
-- them once into one row per server, and the page merges a group's rows, exactly: histograms add.
-- A server with no timed read in the window has no row (not measured, never 0).
CREATE TABLE server_read_latency (
  org_id       text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id    uuid PRIMARY KEY,
  -- The histogram holds the 1-minute buckets in (window_start, window_end].
  window_start timestamptz NOT NULL,
  window_end   timestamptz NOT NULL,
  reads        double precision NOT NULL CHECK (reads > 0),
  -- The 28 buckets of spindle.disk.io.latency (docs/metrics.md), summed over the window and devices.
  buckets      double precision[] NOT NULL CHECK (cardinality(buckets) = 28),
  computed_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (window_start < window_end),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX server_read_latency_org_idx ON server_read_latency (org_id);
SELECT spindle_protect_tenant_relation('server_read_latency');
-- Grafana reads telemetry; this is the console's.
REVOKE ALL ON server_read_latency FROM spindle_grafana;
