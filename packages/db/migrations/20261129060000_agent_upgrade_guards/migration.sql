-- Agent upgrades go through the staged rollouts' measured guards (issue 26, docs/install.md
-- "Upgrades"): after a wave has installed and soaked, the worker reads the p99 latency of the
-- wave's devices and compares the wave's servers with the servers not yet upgraded (difference in
-- differences with an interval) before it offers the next wave. One row per wave judged: the
-- newest readings (@spindle/domain guardReadingSchema[], the same shape rollout_waves stores), the
-- verdict and its reason. A trip pauses the rollout; a hold keeps it running at the wave until the
-- data is there, or until an owner or admin overrides the hold (overridden_by, audited).
CREATE TABLE agent_upgrade_waves (
  org_id        text NOT NULL,
  rollout_id    uuid NOT NULL,
  wave          integer NOT NULL CHECK (wave >= 0),
  -- pass: the next wave may go out; hold: a guard lacks data; trip: a regression paused the rollout
  verdict       text NOT NULL CHECK (verdict IN ('pass', 'hold', 'trip')),
  reason        text NOT NULL DEFAULT '' CHECK (length(reason) <= 4000),
  readings      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(readings) = 'array'),
  readings_at   timestamptz NOT NULL,
  -- the windows read: after = the soak (at least the guard-window floor), before = as long, up to the offer
  after_start   timestamptz NOT NULL,
  after_end     timestamptz NOT NULL,
  before_start  timestamptz NOT NULL,
  before_end    timestamptz NOT NULL,
  overridden_by text REFERENCES users(id) ON DELETE SET NULL,
  overridden_at timestamptz,
  PRIMARY KEY (rollout_id, wave),
  FOREIGN KEY (org_id, rollout_id) REFERENCES agent_upgrade_rollouts (org_id, id) ON DELETE CASCADE
);

DO $$
BEGIN
  PERFORM spindle_protect_tenant_relation('agent_upgrade_waves'::regclass);
  REVOKE ALL ON agent_upgrade_waves FROM spindle_gateway, spindle_grafana;
END $$;
