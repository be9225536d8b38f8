-- Cache policies: named policies with immutable numbered versions, their assignments (organisation
-- default, tag, server), and each server's policy status as its agent reports it over OpAMP.
-- Plain relational SQL: the same on the TimescaleDB and the plain path. Mirrors the Policy*
-- models of prisma/schema.prisma. The contract for readers and writers is docs/policy.md.

-- Composite foreign keys (org_id, x_id) below make a row of one organisation unable to point at
-- another organisation's policy or server, whatever the application does.
ALTER TABLE servers ADD CONSTRAINT servers_org_id_id_key UNIQUE (org_id, id);

CREATE TABLE policies (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id      text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name        text NOT NULL CHECK (name = btrim(name) AND length(name) BETWEEN 1 AND 100),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 2000),
  created_by  text REFERENCES users(id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  archived_at timestamptz,               -- hidden from pickers; its versions stay readable
  UNIQUE (org_id, id)
);
-- "Postgres" and "postgres" are one name to a person reading a list.
CREATE UNIQUE INDEX policies_org_id_name_key ON policies (org_id, lower(name));

-- One document per version; versions count 1, 2, 3… per policy and never change.
CREATE TABLE policy_versions (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  policy_id  uuid NOT NULL,
  -- No foreign key of its own to organizations: the composite key below reaches it through the
  -- policy, so deleting an organisation removes versions only by removing their policy first.
  org_id     text NOT NULL,
  version    integer NOT NULL CHECK (version >= 1),
  -- A policy layer, validated by @spindle/policy's validatePolicyLayer before it is stored.
  document   jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object' AND document @> '{"schemaVersion": 1}'),
  comment    text NOT NULL DEFAULT '' CHECK (length(comment) <= 500),
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (policy_id, version),
  FOREIGN KEY (org_id, policy_id) REFERENCES policies (org_id, id) ON DELETE CASCADE
);
CREATE INDEX policy_versions_org_id_idx ON policy_versions (org_id);

-- Immutability: a version is history. Only two changes are let through, both made by the
-- database itself: removing the whole policy (ON DELETE CASCADE from its policy or organisation)
-- and forgetting a deleted author (ON DELETE SET NULL on created_by).
CREATE FUNCTION policy_versions_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF NOT EXISTS (SELECT 1 FROM policies WHERE id = OLD.policy_id) THEN
      RETURN OLD;
    END IF;
  ELSIF NEW.created_by IS NULL AND OLD.created_by IS NOT NULL
        AND (NEW.id, NEW.policy_id, NEW.org_id, NEW.version, NEW.document, NEW.comment, NEW.created_at)
            IS NOT DISTINCT FROM (OLD.id, OLD.policy_id, OLD.org_id, OLD.version, OLD.document, OLD.comment, OLD.created_at)
        AND NOT EXISTS (SELECT 1 FROM users WHERE id = OLD.created_by) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'policy version % of policy % is immutable: save a new version instead', OLD.version, OLD.policy_id
    USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

CREATE TRIGGER policy_versions_immutable
  BEFORE UPDATE OR DELETE ON policy_versions
  FOR EACH ROW EXECUTE FUNCTION policy_versions_refuse_change();

-- Where a policy applies. A server's effective policy merges, in this order: the organisation
-- default, the policies of its tags in tag-name order, its own assignment.
CREATE TABLE policy_assignments (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id     text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  policy_id  uuid NOT NULL,
  scope      text NOT NULL CHECK (scope IN ('organization', 'tag', 'server')),
  tag        text CHECK (tag ~ '^[a-z0-9][a-z0-9._:-]{0,62}$'),
  server_id  uuid,
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (
    (scope = 'organization' AND tag IS NULL AND server_id IS NULL) OR
    (scope = 'tag' AND tag IS NOT NULL AND server_id IS NULL) OR
    (scope = 'server' AND server_id IS NOT NULL AND tag IS NULL)
  ),
  FOREIGN KEY (org_id, policy_id) REFERENCES policies (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX policy_assignments_organization_key ON policy_assignments (org_id) WHERE scope = 'organization';
CREATE UNIQUE INDEX policy_assignments_tag_key ON policy_assignments (org_id, tag) WHERE scope = 'tag';
CREATE UNIQUE INDEX policy_assignments_server_key ON policy_assignments (org_id, server_id) WHERE scope = 'server';
CREATE INDEX policy_assignments_policy_id_idx ON policy_assignments (policy_id);
CREATE INDEX policy_assignments_server_id_idx ON policy_assignments (server_id) WHERE server_id IS NOT NULL;

-- What the server's agent last said about its policy. Written by the gateway from OpAMP
-- RemoteConfigStatus; read by the console. Hashes are lowercase hex SHA-256 of the canonical
-- JSON of an effective policy (docs/policy.md, "Policy hash").
CREATE TABLE server_policy_status (
  org_id               text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id            uuid PRIMARY KEY,
  desired_version_hash text CHECK (desired_version_hash ~ '^[0-9a-f]{64}$'),  -- last effective policy the gateway sent
  applied_hash         text CHECK (applied_hash ~ '^[0-9a-f]{64}$'),          -- last policy the agent applied
  status               text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'failed')),
  message              text NOT NULL DEFAULT '',                              -- the agent's error_message when failed
  reported_at          timestamptz,                                           -- last RemoteConfigStatus received
  applied_at           timestamptz,                                           -- when applied_hash was first reported APPLIED
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX server_policy_status_org_id_idx ON server_policy_status (org_id);

-- Every gateway LISTENs on spindle_policy_changed and recomputes the effective policies of the
-- organisation named in the payload. NOTIFY is delivered at commit, so a rolled-back change is
-- never announced, and identical payloads in one transaction arrive once.
CREATE FUNCTION notify_policy_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed_org text := CASE WHEN TG_OP = 'DELETE' THEN OLD.org_id ELSE NEW.org_id END;
BEGIN
  PERFORM pg_notify('spindle_policy_changed', json_build_object('orgId', changed_org)::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER policy_versions_notify
  AFTER INSERT ON policy_versions
  FOR EACH ROW EXECUTE FUNCTION notify_policy_changed();

CREATE TRIGGER policy_assignments_notify
  AFTER INSERT OR UPDATE OR DELETE ON policy_assignments
  FOR EACH ROW EXECUTE FUNCTION notify_policy_changed();

CREATE TRIGGER servers_tags_notify
  AFTER UPDATE OF tags ON servers
  FOR EACH ROW WHEN (OLD.tags IS DISTINCT FROM NEW.tags)
  EXECUTE FUNCTION notify_policy_changed();
