// Counters the scale-out test puts into its own database to count what background jobs did,
// transaction by transaction: which rollup ranges were claimed and which 1-minute buckets
// written, how many DELETE statements retention ran on a raw table, and every write of an
// effective policy. SECURITY DEFINER, so the services' roles (spindle_system, spindle_worker) can
// record into a schema they cannot otherwise touch. Test-only SQL, never a migration.
export const jobProbesSql = `
CREATE SCHEMA probe;
CREATE TABLE probe.rollup_queued (id bigint, source text, server_id uuid, first_time timestamptz, last_time timestamptz);
CREATE TABLE probe.rollup_claimed (txid bigint, id bigint, source text, server_id uuid, first_time timestamptz, last_time timestamptz);
CREATE TABLE probe.memory_1m_written (txid bigint, server_id uuid, bucket timestamptz);
CREATE TABLE probe.memory_deletes (txid bigint);
CREATE TABLE probe.effective_policy_written (txid bigint, server_id uuid, hash text);

CREATE FUNCTION probe.record() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  IF TG_TABLE_NAME = 'rollup_pending' AND TG_OP = 'INSERT' THEN
    INSERT INTO probe.rollup_queued VALUES (NEW.id, NEW.source, NEW.server_id, NEW.first_time, NEW.last_time);
  ELSIF TG_TABLE_NAME = 'rollup_pending' THEN
    INSERT INTO probe.rollup_claimed VALUES (txid_current(), OLD.id, OLD.source, OLD.server_id, OLD.first_time, OLD.last_time);
  ELSIF TG_TABLE_NAME = 'memory_1m' THEN
    INSERT INTO probe.memory_1m_written VALUES (txid_current(), NEW.server_id, NEW.bucket);
  ELSIF TG_TABLE_NAME = 'memory' THEN
    INSERT INTO probe.memory_deletes VALUES (txid_current());
  ELSE
    INSERT INTO probe.effective_policy_written VALUES (txid_current(), NEW.server_id, NEW.hash);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER probe_queued AFTER INSERT ON rollup_pending FOR EACH ROW EXECUTE FUNCTION probe.record();
CREATE TRIGGER probe_claimed AFTER DELETE ON rollup_pending FOR EACH ROW EXECUTE FUNCTION probe.record();
CREATE TRIGGER probe_written AFTER INSERT OR UPDATE ON memory_1m FOR EACH ROW EXECUTE FUNCTION probe.record();
-- Statement level: a retention run issues one DELETE per table (fewer rows than a slice), even
-- when it finds nothing to delete, so two runs would show as two statements.
CREATE TRIGGER probe_deletes AFTER DELETE ON memory FOR EACH STATEMENT EXECUTE FUNCTION probe.record();
CREATE TRIGGER probe_policy AFTER INSERT OR UPDATE ON server_effective_policies FOR EACH ROW EXECUTE FUNCTION probe.record();
`;
