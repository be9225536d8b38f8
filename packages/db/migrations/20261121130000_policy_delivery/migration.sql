-- Policy delivery: each server's effective policy, materialised by the worker with the one merge
-- of @spindle/policy, and the notifications that carry a change from a save in the console to
-- every gateway holding an OpAMP connection of that server (docs/policy.md, "Delivery").
-- Runs after 20261121120000_policies: it reuses notify_policy_changed() and server_policy_status.

-- One row per server once the worker has seen it. `document` is the merged, normalised policy
-- (parsePolicy's output, every default applied) and `hash` the lowercase hex SHA-256 of its
-- canonical JSON (docs/policy.md, "Policy hash"): the gateway sends exactly these as OpAMP
-- RemoteConfig and config_hash. When the layers merge into an invalid policy the previous valid
-- document stays in force and `error` says why; a server that never had a valid one has NULLs.
CREATE TABLE server_effective_policies (
  org_id      text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id   uuid PRIMARY KEY,
  document    jsonb CHECK (jsonb_typeof(document) = 'object' AND document @> '{"schemaVersion": 1}'),
  hash        text CHECK (hash ~ '^[0-9a-f]{64}$'),
  -- Where `document` came from, lowest precedence first:
  -- [{"scope": "organization"|"tag"|"server", "tag": …|null, "policyId", "policyName", "versionId", "version"}]
  layers      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(layers) = 'array'),
  computed_at timestamptz NOT NULL DEFAULT now(),
  -- The problems of the newest merge when it was invalid (describeProblems text); NULL when valid.
  error       text,
  error_at    timestamptz,
  CHECK ((document IS NULL) = (hash IS NULL)),
  CHECK ((error IS NULL) = (error_at IS NULL)),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX server_effective_policies_org_id_idx ON server_effective_policies (org_id);

-- Every gateway LISTENs on spindle_effective_policy_changed and pushes the new document to the
-- agent of the named server if it holds that agent's OpAMP connection. Only a new hash is news:
-- recording an error, or recomputing to the same document, announces nothing.
CREATE FUNCTION notify_effective_policy_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.hash IS NOT NULL AND (TG_OP = 'INSERT' OR NEW.hash IS DISTINCT FROM OLD.hash) THEN
    PERFORM pg_notify('spindle_effective_policy_changed',
                      json_build_object('serverId', NEW.server_id, 'hash', NEW.hash)::text);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER server_effective_policies_notify
  AFTER INSERT OR UPDATE OF hash ON server_effective_policies
  FOR EACH ROW EXECUTE FUNCTION notify_effective_policy_changed();

-- A newly enrolled server needs its effective policy at once, before its agent first connects
-- (tag changes are announced by 20261121120000_policies).
CREATE TRIGGER servers_insert_notify
  AFTER INSERT ON servers
  FOR EACH ROW EXECUTE FUNCTION notify_policy_changed();

-- What the agent last said it received (OpAMP last_remote_config_hash), applied or not. The
-- gateway compares it with the effective hash to decide whether to send RemoteConfig, also for
-- an HTTP-polling agent whose messages leave unchanged status out and for an agent that moves to
-- another gateway.
ALTER TABLE server_policy_status
  ADD COLUMN reported_hash text CHECK (reported_hash ~ '^[0-9a-f]{64}$');

-- What the agent says over OpAMP besides its policy status (the gateway writes these; the console
-- reads them). agents.capabilities (relational migration) receives {"opamp": [...], "features": {...}}.
ALTER TABLE agents
  ADD COLUMN health           jsonb,         -- {"healthy", "status", "lastError", "startedAt", "reportedAt"}
  ADD COLUMN effective_config jsonb,         -- {"hash", "document", "reportedAt"}: the policy the agent says is in force
  ADD COLUMN opamp_seen_at    timestamptz;   -- the agent's latest OpAMP message
