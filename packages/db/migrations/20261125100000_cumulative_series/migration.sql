-- Cumulative series (issue 13, docs/agent-protocol.md "OpenTelemetry Collector as a source"):
-- the last point the gateway saw of each cumulative OTLP series a server sends (an
-- OpenTelemetry Collector's hostmetrics receiver reports counters since boot, Spindle stores
-- per-interval deltas). The gateway turns each new point into the delta since this one, in the
-- transaction that writes the rows, so the state survives gateway restarts and two gateways
-- behind one load balancer share it (the agent row's lock orders them). A level (gauge) keeps
-- its last time too: a point at or before it is a duplicate the Collector sent again.
--
-- series_key: the metric name and its point attributes in a canonical form (ingest/cumulative.go)
-- start_unix_nano: the series' StartTimeUnixNano; a new one means the source restarted
-- last_unix_nano: the newest point's TimeUnixNano (nanoseconds: OTLP's own resolution)
-- last_int / last_double: its value, as it travelled (int or double points)
CREATE TABLE cumulative_series (
  org_id           text    NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id        uuid    NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
  series_key       text    NOT NULL CHECK (length(series_key) <= 1024),
  start_unix_nano  bigint  NOT NULL,
  last_unix_nano   bigint  NOT NULL,
  last_int         bigint,
  last_double      double precision,
  CHECK ((last_int IS NULL) <> (last_double IS NULL)),
  PRIMARY KEY (org_id, server_id, series_key)
);

SELECT spindle_protect_tenant_relation('cumulative_series');
