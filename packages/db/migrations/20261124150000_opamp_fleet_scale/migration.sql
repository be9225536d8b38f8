-- OpAMP at fleet scale (issue 12): a gateway holding thousands of WebSockets re-checks their
-- credentials in one query per sweep instead of one lookup per agent message. Like
-- spindle_agent_by_credential (20261123130000_tenant_security) it crosses organisations, so it
-- is SECURITY DEFINER and returns only the rows the given hashes name.
CREATE OR REPLACE FUNCTION spindle_agents_by_credentials(hashes bytea[])
RETURNS TABLE (credential_hash bytea, agent_id uuid, org_id text, server_id uuid, revoked boolean, expired boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
  SELECT a.credential_hash, a.id, a.org_id, a.server_id, a.revoked_at IS NOT NULL, a.credential_expires_at <= now()
  FROM agents a
  JOIN servers s ON s.id = a.server_id AND s.org_id = a.org_id
  WHERE a.credential_hash = ANY (hashes)
$fn$;

REVOKE ALL ON FUNCTION spindle_agents_by_credentials(bytea[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION spindle_agents_by_credentials(bytea[]) TO spindle_gateway;
