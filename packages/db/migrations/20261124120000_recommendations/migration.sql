-- Tuning recommendations (issue 9, docs/recommendations.md): what to change on a server, why,
-- the predicted effect with its basis and a confidence, what the user did with it, the policy
-- version Apply created, and the effect realised afterwards. Written by the worker's
-- recommendations_refresh job (one row per finding, updated in place while it holds) and by the
-- console (apply, dismiss, snooze). The JSON columns hold @spindle/domain's zod shapes
-- (evidenceSchema, predictionSchema, confidenceSchema, policyChangeSchema, RealisedEffect).

CREATE TABLE recommendations (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id            text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id         uuid NOT NULL,
  kind              text NOT NULL CHECK (kind IN ('read_cache_budget', 'scan_drop_behind', 'preallocation_rule',
                                                  'defragment_file', 'flash_tier', 'enable_capability')),
  -- what the finding is about inside the server: a scope, a path, a device, a capability
  subject           text NOT NULL CHECK (length(subject) <= 4096),
  title             text NOT NULL CHECK (length(btrim(title)) BETWEEN 1 AND 300),
  steps             text NOT NULL DEFAULT '' CHECK (length(steps) <= 2000),
  change            jsonb CHECK (change IS NULL OR jsonb_typeof(change) = 'object'),  -- NULL: no policy can do it
  evidence          jsonb NOT NULL CHECK (jsonb_typeof(evidence) = 'object'),
  prediction        jsonb NOT NULL CHECK (jsonb_typeof(prediction) = 'object'),
  confidence        jsonb NOT NULL CHECK (jsonb_typeof(confidence) = 'object'),
  status            text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'applied', 'dismissed', 'snoozed')),
  snoozed_until     timestamptz,
  status_changed_by text REFERENCES users(id) ON DELETE SET NULL,
  status_changed_at timestamptz,
  -- the policy version Apply saved (the server's own policy) and when
  applied_policy_id      uuid,
  applied_policy_version integer CHECK (applied_policy_version >= 1),
  applied_at        timestamptz,
  -- the realised effect, computed by the worker a window after applied_at
  realised          jsonb CHECK (realised IS NULL OR jsonb_typeof(realised) = 'object'),
  realised_at       timestamptz,
  first_seen_at     timestamptz NOT NULL DEFAULT now(),
  -- the newest refresh that produced this finding; resolved_at is set when a refresh no longer
  -- does (and cleared when it comes back), so the lists show what holds today
  refreshed_at      timestamptz NOT NULL DEFAULT now(),
  resolved_at       timestamptz,
  -- sent in a digest through the alert channels (recommendations_digest)
  notified_at       timestamptz,
  CHECK ((status = 'snoozed') = (snoozed_until IS NOT NULL)),
  CHECK ((status = 'applied') = (applied_at IS NOT NULL)),
  CHECK ((realised IS NULL) = (realised_at IS NULL)),
  UNIQUE (org_id, id),
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, applied_policy_id) REFERENCES policies (org_id, id) ON DELETE SET NULL (applied_policy_id)
);

-- One live row per finding: a refresh updates it instead of adding another. An applied row is
-- history (its prediction and realised effect stay as they were), so the same finding found again
-- later starts a new row. Dismissed and snoozed rows keep their key, so they stay remembered.
CREATE UNIQUE INDEX recommendations_finding_idx ON recommendations (org_id, server_id, kind, subject) WHERE status <> 'applied';
CREATE INDEX recommendations_org_status_idx ON recommendations (org_id, status);

SELECT spindle_protect_tenant_relation('recommendations');
