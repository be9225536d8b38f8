-- Issue 8, the rest of alerting. Shared by plain.sql and timescale.sql.
--
-- 1. Acknowledging a firing alert (docs/alerts.md, "Acknowledge").
--
-- An alert is one firing of a rule × subject, and its alert_history row (the change to firing)
-- is its identity: a member acknowledges that row. A resolve and a later firing write new rows,
-- so an acknowledgement ends with the alert it was given to, and history keeps who took it.
ALTER TABLE alert_history
  ADD COLUMN acknowledged_at   timestamptz,
  ADD COLUMN acknowledged_by   text REFERENCES users(id) ON DELETE SET NULL,
  ADD COLUMN acknowledge_note  text CHECK (length(acknowledge_note) <= 1000),
  ADD CONSTRAINT alert_history_ack_of_firing CHECK (acknowledged_at IS NULL OR to_state = 'firing'),
  ADD CONSTRAINT alert_history_ack_whole CHECK (acknowledged_at IS NOT NULL OR (acknowledged_by IS NULL AND acknowledge_note IS NULL));

-- 2. Space of mounted local file systems and the agent's own spool (docs/metrics.md,
-- "File systems" and "Agent spool"), for the "disk filling up" and "spool growing" alerts.
-- Gauges at the end of each interval; a row always carries all of them.
CREATE TABLE filesystem (
  time             timestamptz      NOT NULL,  -- end of the sampling interval
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  mountpoint       text             NOT NULL CHECK (length(mountpoint) BETWEEN 1 AND 4096),
  device           text             NOT NULL CHECK (length(device) BETWEEN 1 AND 4096),
  fs_type          text             NOT NULL CHECK (length(fs_type) BETWEEN 1 AND 64),
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  size_bytes       bigint           NOT NULL CHECK (size_bytes > 0),
  -- free: blocks not in use (statfs f_bfree); available: what an unprivileged writer may still
  -- use (f_bavail). The difference is the root reserve; a file system is full for applications
  -- when available reaches 0.
  free_bytes       bigint           NOT NULL CHECK (free_bytes >= 0 AND free_bytes <= size_bytes),
  available_bytes  bigint           NOT NULL CHECK (available_bytes >= 0 AND available_bytes <= free_bytes)
);

CREATE TABLE agent_spool (
  time             timestamptz      NOT NULL,
  org_id           text             NOT NULL,
  server_id        uuid             NOT NULL,
  interval_seconds double precision NOT NULL CHECK (interval_seconds > 0),
  spool_bytes      bigint           NOT NULL CHECK (spool_bytes >= 0),     -- on disk and held in memory
  pending_batches  bigint           NOT NULL CHECK (pending_batches >= 0)  -- written, not yet acknowledged
);
