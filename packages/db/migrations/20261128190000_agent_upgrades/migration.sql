-- Agent upgrades over OpAMP (issue 26, docs/install.md "Upgrades", docs/agent-protocol.md
-- "Upgrades"). The gateways serve agent releases from their distribution directory and record
-- them in agent_releases; an upgrade rollout takes the servers of an organisation to one of those
-- versions in waves (a canary, then percentages); each server's attempt is one agent_upgrades row,
-- which the gateway offers over OpAMP (PackagesAvailable) while it is active and updates from the
-- agent's PackageStatuses; a pin holds a server at one version, outside every rollout.
--
-- The worker drives the waves (apps/worker/src/upgrades): one transaction per step with the
-- rollout row locked FOR UPDATE SKIP LOCKED. A server that failed or rolled back pauses its
-- rollout, so a bad version stops at the wave that found it.

CREATE FUNCTION spindle_is_agent_version(v text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT v ~ '^[0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9}(-[0-9A-Za-z.-]{1,64})?$'
$fn$;

-- What the gateways serve (not tenant data: every organisation may install every release).
-- files: [{ "os", "arch", "name", "sha256", "size" }] for the binaries; packages: the .deb and
-- .rpm files of the release, same shape with "format".
CREATE TABLE agent_releases (
  version       text PRIMARY KEY CHECK (spindle_is_agent_version(version)),
  files         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(files) = 'array'),
  packages      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(packages) = 'array'),
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  -- a gateway refreshes it every few minutes while it serves the release
  last_seen_at  timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT ON agent_releases TO spindle_console, spindle_worker, spindle_system;
GRANT SELECT, INSERT, UPDATE ON agent_releases TO spindle_gateway;

-- A server held at one version: rollouts leave it out, and the gateway offers the pinned version
-- whenever the agent runs another (which may be older: a pin is also how a server goes back).
CREATE TABLE agent_version_pins (
  org_id     text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id  uuid NOT NULL,
  version    text NOT NULL CHECK (spindle_is_agent_version(version)),
  reason     text NOT NULL DEFAULT '' CHECK (length(reason) <= 500),
  pinned_by  text REFERENCES users(id) ON DELETE SET NULL,
  pinned_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, server_id),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);

CREATE TABLE agent_upgrade_rollouts (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id         text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  target_version text NOT NULL CHECK (spindle_is_agent_version(target_version)),
  -- @spindle/domain agentUpgradeScopeSchema: the whole organisation, a tag, or chosen servers
  scope          jsonb NOT NULL CHECK (jsonb_typeof(scope) = 'object'),
  -- @spindle/domain agentUpgradePlanSchema: canary size, cumulative wave percentages, soak
  plan           jsonb NOT NULL CHECK (jsonb_typeof(plan) = 'object'),
  status         text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'paused', 'completed', 'cancelled')),
  -- why it is paused (the server that failed and its message, or who paused it), or how it ended
  status_reason  text NOT NULL DEFAULT '' CHECK (length(status_reason) <= 4000),
  -- the wave offered last (0 is the canary); the next one goes out once this one has soaked
  current_wave   integer NOT NULL DEFAULT 0 CHECK (current_wave >= 0),
  wave_count     integer NOT NULL CHECK (wave_count >= 1),
  -- when every server of current_wave finished installing: its soak starts here
  wave_installed_at timestamptz,
  created_by     text REFERENCES users(id) ON DELETE SET NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  finished_at    timestamptz,
  CHECK ((status IN ('completed', 'cancelled')) = (finished_at IS NOT NULL)),
  UNIQUE (org_id, id)
);
-- One upgrade at a time per organisation: two would race for the same servers.
CREATE UNIQUE INDEX agent_upgrade_rollouts_one_active ON agent_upgrade_rollouts (org_id) WHERE status IN ('running', 'paused');
CREATE INDEX agent_upgrade_rollouts_org_created_idx ON agent_upgrade_rollouts (org_id, created_at DESC);

-- One server's attempt to reach a version. waiting: its wave has not gone out; offered: the
-- gateway offers it over OpAMP; downloading / installing: what the agent reports; installed: the
-- new agent connected and reported healthy; failed: refused or broken before the swap (download,
-- signature, SHA-256, disk); rolled_back: the new agent did not come up healthy and the watchdog
-- brought the previous one back; skipped: left out (pinned, cannot be upgraded remotely, already
-- there); cancelled: the rollout was cancelled or the pin removed before the agent started.
CREATE TABLE agent_upgrades (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id         text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id      uuid NOT NULL,
  rollout_id     uuid,                -- NULL: a pin's upgrade
  wave           integer CHECK (wave >= 0),
  target_version text NOT NULL CHECK (spindle_is_agent_version(target_version)),
  from_version   text NOT NULL DEFAULT '' CHECK (length(from_version) <= 100),
  state          text NOT NULL DEFAULT 'waiting'
                 CHECK (state IN ('waiting', 'offered', 'downloading', 'installing', 'installed', 'failed', 'rolled_back', 'skipped', 'cancelled')),
  message        text NOT NULL DEFAULT '' CHECK (length(message) <= 4000),
  -- OpAMP's AllPackagesHash of the offer (hex): the agent's PackageStatuses name it, so a report
  -- is matched to its attempt, and an agent never retries an offer it already failed
  offer_hash     text CHECK (offer_hash ~ '^[0-9a-f]{64}$'),
  created_at     timestamptz NOT NULL DEFAULT now(),
  offered_at     timestamptz,
  -- the agent's newest report on it
  reported_at    timestamptz,
  finished_at    timestamptz,
  -- set when someone resumed the rollout past this failure: it no longer pauses the rollout
  acknowledged_at timestamptz,
  CHECK ((state IN ('installed', 'failed', 'rolled_back', 'skipped', 'cancelled')) = (finished_at IS NOT NULL)),
  -- a pin's attempt has no rollout and no wave; a rollout's skipped servers have no wave either
  CHECK (rollout_id IS NOT NULL OR wave IS NULL),
  CHECK (wave IS NOT NULL OR rollout_id IS NULL OR state IN ('skipped', 'cancelled')),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, rollout_id) REFERENCES agent_upgrade_rollouts (org_id, id) ON DELETE CASCADE
);
-- What the gateway offers: at most one live attempt per server.
CREATE UNIQUE INDEX agent_upgrades_one_live ON agent_upgrades (org_id, server_id) WHERE state IN ('offered', 'downloading', 'installing');
CREATE UNIQUE INDEX agent_upgrades_offer_hash ON agent_upgrades (offer_hash) WHERE offer_hash IS NOT NULL;
CREATE INDEX agent_upgrades_rollout_idx ON agent_upgrades (rollout_id, wave) WHERE rollout_id IS NOT NULL;
CREATE INDEX agent_upgrades_server_idx ON agent_upgrades (org_id, server_id, created_at DESC);

DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['agent_version_pins', 'agent_upgrade_rollouts', 'agent_upgrades'] LOOP
    PERFORM spindle_protect_tenant_relation(t::regclass);
    EXECUTE format('REVOKE ALL ON %I FROM spindle_grafana', t);
  END LOOP;
END $$;
-- The gateway reads offers and records what agents report; it never plans or pins.
REVOKE ALL ON agent_version_pins, agent_upgrade_rollouts FROM spindle_gateway;
REVOKE INSERT ON agent_upgrades FROM spindle_gateway;

-- Every gateway offers what became live (and withdraws what was cancelled) at once: one
-- announcement per organisation and statement, since a wave of a large fleet moves thousands of
-- rows in one statement and a payload holds 8,000 bytes. The gateway re-reads the offers of the
-- organisation's servers connected to it.
CREATE FUNCTION spindle_announce_agent_upgrades() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE moved_org text;
BEGIN
  -- Each branch is planned only when it runs: an INSERT has no old_rows.
  IF TG_OP = 'INSERT' THEN
    FOR moved_org IN SELECT DISTINCT n.org_id FROM new_rows n WHERE n.state = 'offered' LOOP
      PERFORM pg_notify('spindle_agent_upgrade_changed', json_build_object('orgId', moved_org)::text);
    END LOOP;
  ELSE
    FOR moved_org IN
      SELECT DISTINCT n.org_id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.state IN ('offered', 'cancelled') AND o.state IS DISTINCT FROM n.state
    LOOP
      PERFORM pg_notify('spindle_agent_upgrade_changed', json_build_object('orgId', moved_org)::text);
    END LOOP;
  END IF;
  RETURN NULL;
END
$fn$;

CREATE TRIGGER agent_upgrades_announce_insert
  AFTER INSERT ON agent_upgrades
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION spindle_announce_agent_upgrades();

CREATE TRIGGER agent_upgrades_announce_update
  AFTER UPDATE ON agent_upgrades
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION spindle_announce_agent_upgrades();

-- The newest attempt per server and the release list are what the fleet page reads.
CREATE INDEX agent_releases_seen_idx ON agent_releases (last_seen_at DESC);
