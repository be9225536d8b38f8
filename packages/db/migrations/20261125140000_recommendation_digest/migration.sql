-- The recommendations digest (docs/recommendations.md, "Digest"): new recommendations sent as one
-- message per organisation and period through the channels the organisation opted in.
-- Mirrors NotificationChannel.recommendationDigest and RecommendationDigest in schema.prisma.

-- Opt-in per channel, off by default: alert channels were set up for alerts. PagerDuty opens
-- incidents, which a list of tuning advice is not, so it cannot opt in.
ALTER TABLE notification_channels
  ADD COLUMN recommendation_digest boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT notification_channels_digest_kind_check CHECK (NOT recommendation_digest OR kind <> 'pagerduty');
-- The console reads channels column by column (it may not read secrets).
GRANT SELECT (recommendation_digest) ON notification_channels TO spindle_console;

-- The outbox carries digests too; their notice is the digest (@spindle/notify RecommendationDigest).
ALTER TABLE notifications DROP CONSTRAINT notifications_purpose_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_purpose_check CHECK (purpose IN ('alert', 'test', 'recommendations'));

-- One row per organisation and period, written in the transaction that queues the digest's
-- outbox rows and sets the recommendations' notified_at: a crash before the commit leaves
-- nothing (the next run sends them), after it the outbox delivers each row once; the unique key
-- keeps two workers from sending two digests for one period.
CREATE TABLE recommendation_digests (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id             text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  period_start       timestamptz NOT NULL,
  recommendation_ids uuid[] NOT NULL CHECK (cardinality(recommendation_ids) >= 1),
  channels           integer NOT NULL CHECK (channels >= 1),
  created_at         timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, period_start)
);

SELECT spindle_protect_tenant_relation('recommendation_digests');
REVOKE ALL ON recommendation_digests FROM spindle_gateway, spindle_grafana;
