-- Issue 8, the rest of alerting: acknowledging a firing alert (docs/alerts.md, "Acknowledge").
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
