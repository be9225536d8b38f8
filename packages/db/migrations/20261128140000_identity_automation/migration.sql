-- Identity and automation (issue 24): the tables better-auth's two-factor, api-key and sso
-- plugins keep, and what the console adds around them. Plain SQL, the same in both time-series
-- modes. Column names are snake_case; prisma/schema.prisma maps better-auth's field names.

-- Two-factor authentication (TOTP + recovery codes). The secret and the recovery codes are
-- encrypted by better-auth with BETTER_AUTH_SECRET before they reach this table.
ALTER TABLE users ADD COLUMN two_factor_enabled boolean NOT NULL DEFAULT false;

CREATE TABLE two_factors (
  id                        text PRIMARY KEY,
  user_id                   text NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
  secret                    text NOT NULL,
  backup_codes              text NOT NULL,
  verified                  boolean NOT NULL DEFAULT true,
  failed_verification_count integer NOT NULL DEFAULT 0,
  locked_until              timestamptz
);

-- How each session was opened (password, password+totp, password+recovery-code, email-link,
-- sso:<provider>): the MFA and SSO requirements of an organisation are judged on it, and the
-- sessions list shows it.
ALTER TABLE sessions ADD COLUMN sign_in_method text;

-- An owner can require every member who signs in with a password to use a second factor.
ALTER TABLE organizations ADD COLUMN require_mfa boolean NOT NULL DEFAULT false;

-- API tokens (better-auth's api-key plugin, owned by the organisation). Only the SHA-256 of the
-- token is kept (`key`, base64url); `start` is its first characters, to recognise it in a list.
-- The role and the member who created it are in `metadata`. rate_window_* are Spindle's
-- per-token rate limit (a fixed one-minute window counted in one UPDATE, so every console
-- replica shares it); the plugin's own limiter is off.
CREATE TABLE api_tokens (
  id                     text PRIMARY KEY,
  config_id              text NOT NULL DEFAULT 'default',
  name                   text,
  start                  text,
  prefix                 text,
  reference_id           text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  key                    text NOT NULL UNIQUE,
  refill_interval        integer,
  refill_amount          integer,
  last_refill_at         timestamptz,
  enabled                boolean NOT NULL DEFAULT true,
  rate_limit_enabled     boolean NOT NULL DEFAULT true,
  rate_limit_time_window integer,
  rate_limit_max         integer,
  request_count          integer NOT NULL DEFAULT 0,
  remaining              integer,
  last_request           timestamptz,
  expires_at             timestamptz,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now(),
  permissions            text,
  metadata               text,
  rate_window_started_at timestamptz,
  rate_window_count      integer NOT NULL DEFAULT 0
);
CREATE INDEX api_tokens_reference_id_idx ON api_tokens(reference_id);
CREATE INDEX api_tokens_config_id_idx ON api_tokens(config_id);

-- Single sign-on (better-auth's sso plugin): one OIDC provider per organisation. The client
-- secret inside oidc_config is sealed by the console before it is written (docs/configure.md,
-- "Single sign-on"); default_role and enforced are Spindle's.
CREATE TABLE sso_providers (
  id              text PRIMARY KEY,
  issuer          text NOT NULL,
  oidc_config     text,
  saml_config     text,
  user_id         text REFERENCES users(id) ON DELETE SET NULL,
  provider_id     text NOT NULL UNIQUE,
  organization_id text UNIQUE REFERENCES organizations(id) ON DELETE CASCADE,
  domain          text NOT NULL,
  domain_verified boolean NOT NULL DEFAULT false,
  default_role    text NOT NULL DEFAULT 'viewer' CHECK (default_role IN ('admin', 'viewer')),
  enforced        boolean NOT NULL DEFAULT false
);

-- Changes made with an API token say which token: the console sets spindle.api_token_id in the
-- transaction, so every audit row written there carries it without each operation passing it.
ALTER TABLE audit_log ADD COLUMN api_token_id text DEFAULT nullif(current_setting('spindle.api_token_id', true), '');

-- Identity tables, like users and members: the console alone reaches them, across organisations.
GRANT SELECT, INSERT, UPDATE, DELETE ON two_factors, api_tokens, sso_providers TO spindle_console;
