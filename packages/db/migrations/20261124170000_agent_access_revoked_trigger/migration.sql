-- Every gateway closes an agent's OpAMP WebSocket the moment its access ends
-- (apps/gateway/internal/opamp/revocation.go listens on spindle_agent_access_revoked). The console
-- used to NOTIFY from its own revoke and remove actions, so access ended any other way (an
-- operator's SQL, the identity taken over by a re-enrolment, an organisation deleted with
-- its agents) left the connection open until its next message or cached check. The database now
-- announces it, whoever ends the access. NOTIFY is delivered at commit, so a rolled-back change
-- announces nothing; the payload only wakes the gateway, which re-checks the database.
--
-- Only the columns that end access fire it (UPDATE OF … WHEN): the high-water-mark and
-- capability updates of every batch and report never pay for it. An agent rotating its own
-- credential changes credential_hash but not enrolled_at, and keeps its connection.

CREATE FUNCTION spindle_announce_agent_access_revoked() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_notify('spindle_agent_access_revoked',
    json_build_object('agentId', OLD.id, 'serverId', OLD.server_id)::text);
  RETURN NULL;
END
$fn$;

CREATE TRIGGER agents_access_revoked_on_update
  AFTER UPDATE OF revoked_at, enrolled_at ON agents
  FOR EACH ROW
  WHEN ((OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL) OR OLD.enrolled_at IS DISTINCT FROM NEW.enrolled_at)
  EXECUTE FUNCTION spindle_announce_agent_access_revoked();

CREATE TRIGGER agents_access_revoked_on_delete
  AFTER DELETE ON agents
  FOR EACH ROW
  EXECUTE FUNCTION spindle_announce_agent_access_revoked();
