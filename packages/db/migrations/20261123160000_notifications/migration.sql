-- Notifications (issue 8, "Notifications"): channels, routes, and the durable outbox that the
-- worker delivers from. Plain relational SQL: the same on the TimescaleDB and the plain path.
-- Mirrors the Notification* models of prisma/schema.prisma. Operators' contract:
-- docs/notifications.md; the code that writes and reads these rows: packages/notify and the
-- worker's notification jobs.

-- A place notifications go: an SMTP mailbox list, a Slack or Teams incoming webhook, a PagerDuty
-- Events v2 integration, or a signed generic webhook. `config` holds what may be shown (host,
-- addresses, URL of a generic webhook); `secrets` what may not (SMTP password, Slack/Teams URLs,
-- which are bearer secrets themselves, the PagerDuty routing key, the whsec_ signing secret).
-- The console cannot SELECT `secrets` at all (column grants below); it shows `secret_hints`.
CREATE TABLE notification_channels (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id       text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (name = btrim(name) AND length(name) BETWEEN 1 AND 100),
  kind         text NOT NULL CHECK (kind IN ('email', 'slack', 'teams', 'pagerduty', 'webhook')),
  -- Validated per kind by @spindle/notify before it is stored.
  config       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(config) = 'object'),
  secrets      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(secrets) = 'object'),
  -- The recognisable end of each secret ("…a1b2"), written with it, for lists and forms.
  secret_hints jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(secret_hints) = 'object'),
  enabled      boolean NOT NULL DEFAULT true,
  created_by   text REFERENCES users(id) ON DELETE SET NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id)
);
CREATE UNIQUE INDEX notification_channels_org_id_name_key ON notification_channels (org_id, lower(name));

-- Which alerts go to which channel: a set of severities and one scope, as policy assignments
-- have (the whole organisation, servers carrying a tag, one server). A channel with several
-- routes gets one notification per transition however many of its routes match.
CREATE TABLE notification_routes (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id          text NOT NULL,
  channel_id      uuid NOT NULL,
  severities      text[] NOT NULL
                  CHECK (cardinality(severities) >= 1 AND severities <@ ARRAY['info', 'warning', 'critical']),
  scope           text NOT NULL CHECK (scope IN ('organization', 'tag', 'server')),
  tag             text CHECK (tag ~ '^[a-z0-9][a-z0-9._:-]{0,62}$'),
  server_id       uuid,
  -- Alertmanager's send_resolved: false sends only firing and no-data notifications.
  notify_resolved boolean NOT NULL DEFAULT true,
  created_by      text REFERENCES users(id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope = 'tag') = (tag IS NOT NULL)),
  CHECK ((scope = 'server') = (server_id IS NOT NULL)),
  FOREIGN KEY (org_id, channel_id) REFERENCES notification_channels (org_id, id) ON DELETE CASCADE,
  FOREIGN KEY (org_id, server_id) REFERENCES servers (org_id, id) ON DELETE CASCADE
);
CREATE INDEX notification_routes_org_id_idx ON notification_routes (org_id);
CREATE INDEX notification_routes_channel_id_idx ON notification_routes (channel_id);

-- The outbox: one row per channel and alert transition, written in the transaction that records
-- the transition. The id is the idempotency key receivers see (webhook-id, email Message-ID);
-- the unique key makes a replayed transition enqueue nothing twice.
--   pending     waiting for next_attempt_at
--   sending     claimed by a worker until lease_until; a worker that dies leaves the lease to
--               expire and another re-sends with the same id
--   sent        delivered (sent_at)
--   failed      permanent error, channel disabled, or attempts exhausted (last_error says which)
--   suppressed  the alert was silenced: recorded for history, never sent
CREATE TABLE notifications (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id          text NOT NULL,
  channel_id      uuid NOT NULL,
  transition_id   text NOT NULL CHECK (length(transition_id) BETWEEN 1 AND 200),
  purpose         text NOT NULL DEFAULT 'alert' CHECK (purpose IN ('alert', 'test')),
  -- The alert notice as @spindle/notify validated it (AlertNotice): rendering reads only this.
  notice          jsonb NOT NULL CHECK (jsonb_typeof(notice) = 'object'),
  status          text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'sending', 'sent', 'failed', 'suppressed')),
  attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  lease_until     timestamptz,
  last_error      text CHECK (length(last_error) <= 2000),
  sent_at         timestamptz,
  failed_at       timestamptz,
  requested_by    text REFERENCES users(id) ON DELETE SET NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (channel_id, transition_id),
  CHECK ((status = 'sent') = (sent_at IS NOT NULL)),
  CHECK ((status = 'failed') = (failed_at IS NOT NULL)),
  CHECK ((status = 'sending') = (lease_until IS NOT NULL)),
  FOREIGN KEY (org_id, channel_id) REFERENCES notification_channels (org_id, id) ON DELETE CASCADE
);
CREATE INDEX notifications_org_created_idx ON notifications (org_id, created_at DESC);
-- The worker's sweeps: due rows, and claims whose worker may have died.
CREATE INDEX notifications_pending_idx ON notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notifications_leased_idx ON notifications (lease_until) WHERE status = 'sending';

-- Every worker LISTENs on spindle_notification_queued and queues the delivery job at once; a
-- notification announced while no worker listened is found by the worker's start-up sweep.
CREATE FUNCTION notify_notification_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('spindle_notification_queued',
                    json_build_object('orgId', NEW.org_id, 'notificationId', NEW.id)::text);
  RETURN NULL;
END;
$$;

CREATE TRIGGER notifications_queued
  AFTER INSERT ON notifications
  FOR EACH ROW WHEN (NEW.status = 'pending') EXECUTE FUNCTION notify_notification_queued();

SELECT spindle_protect_tenant_relation('notification_channels');
SELECT spindle_protect_tenant_relation('notification_routes');
SELECT spindle_protect_tenant_relation('notifications');

-- Secrets stay server-side: the console may write them but never read them back; it reads the
-- hints. The worker, which sends, reads them. Grafana has no business with any of this.
REVOKE SELECT ON notification_channels FROM spindle_console;
GRANT SELECT (id, org_id, name, kind, config, secret_hints, enabled, created_by, created_at, updated_at)
  ON notification_channels TO spindle_console;
REVOKE ALL ON notification_channels, notification_routes, notifications FROM spindle_grafana;
-- The gateway neither routes nor sends.
REVOKE ALL ON notification_channels, notification_routes, notifications FROM spindle_gateway;

-- Found while testing the outbox's tenant isolation: 20261123130000_tenant_security grants
-- spindle_system to spindle_worker so the worker may SET ROLE spindle_system for cross-tenant
-- jobs, but with INHERIT that membership also applies spindle_system's `USING (true)` policy to
-- every spindle_worker transaction: a worker transaction scoped to one organisation saw all of
-- them. NOINHERIT keeps the SET ROLE (membership) and drops the inherited policy and privileges.
-- Roles are cluster-wide; this is idempotent. (20261123131500_worker_role_no_inherit, from the
-- tenant-security work, does the same and more for PostgreSQL 16; where it exists this is a no-op.)
ALTER ROLE spindle_worker NOINHERIT;
