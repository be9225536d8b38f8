-- Relational model: identities (better-auth tables), tenancy, fleet and enrolment.
-- Mirrors prisma/schema.prisma; packages/db/test checks every Prisma model against this DDL.

CREATE TABLE users (
  id             text PRIMARY KEY,
  name           text NOT NULL,
  email          text NOT NULL UNIQUE,
  email_verified boolean NOT NULL DEFAULT false,
  image          text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organizations (
  id         text PRIMARY KEY,
  name       text NOT NULL,
  slug       text NOT NULL UNIQUE,
  logo       text,
  metadata   text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  id                     text PRIMARY KEY,
  user_id                text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token                  text NOT NULL UNIQUE,
  expires_at             timestamptz NOT NULL,
  ip_address             text,
  user_agent             text,
  active_organization_id text,
  created_at             timestamptz NOT NULL DEFAULT now(),
  updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_id_idx ON sessions(user_id);

CREATE TABLE accounts (
  id                       text PRIMARY KEY,
  user_id                  text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  account_id               text NOT NULL,
  provider_id              text NOT NULL,
  access_token             text,
  refresh_token            text,
  id_token                 text,
  access_token_expires_at  timestamptz,
  refresh_token_expires_at timestamptz,
  scope                    text,
  password                 text,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_user_id_idx ON accounts(user_id);

CREATE TABLE verifications (
  id         text PRIMARY KEY,
  identifier text NOT NULL,
  value      text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verifications_identifier_idx ON verifications(identifier);

CREATE TABLE members (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id         text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, user_id)
);
CREATE INDEX members_user_id_idx ON members(user_id);

CREATE TABLE invitations (
  id              text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email           text NOT NULL,
  role            text NOT NULL CHECK (role IN ('owner', 'admin', 'viewer')),
  status          text NOT NULL DEFAULT 'pending',
  expires_at      timestamptz NOT NULL,
  inviter_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitations_organization_id_idx ON invitations(organization_id);

-- Enrolment tokens buy an agent credential, nothing else. Only the SHA-256 of the secret is kept.
CREATE TABLE enrollment_tokens (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id      text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  label       text NOT NULL DEFAULT '',
  token_hash  bytea NOT NULL UNIQUE,
  token_hint  text NOT NULL,               -- last characters, to recognise a token in the list
  created_by  text REFERENCES users(id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz,
  uses        integer NOT NULL DEFAULT 0,
  last_used_at timestamptz
);
CREATE INDEX enrollment_tokens_org_id_idx ON enrollment_tokens(org_id);

-- A server is the host a user sees; machine_id keeps a re-installed agent on the same row.
CREATE TABLE servers (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id        text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  machine_id    text NOT NULL,
  hostname      text NOT NULL,
  os            text NOT NULL,             -- linux | windows
  os_version    text NOT NULL DEFAULT '',  -- e.g. "Debian GNU/Linux 12 (bookworm)"
  kernel        text NOT NULL DEFAULT '',
  arch          text NOT NULL DEFAULT '',
  agent_version text NOT NULL DEFAULT '',
  tags          text[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz,
  UNIQUE (org_id, machine_id)
);

-- The agent's own credential (bearer token, SHA-256 kept) and its delivery high-water mark:
-- a batch with sequence <= batch_hwm was already written and is acknowledged without writing.
CREATE TABLE agents (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id           text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  server_id        uuid NOT NULL UNIQUE REFERENCES servers(id) ON DELETE CASCADE,
  credential_hash  bytea NOT NULL UNIQUE,
  enrollment_token_id uuid REFERENCES enrollment_tokens(id) ON DELETE SET NULL,
  batch_hwm        bigint NOT NULL DEFAULT 0,
  capabilities     jsonb NOT NULL DEFAULT '{}',
  enrolled_at      timestamptz NOT NULL DEFAULT now(),
  revoked_at       timestamptz
);
CREATE INDEX agents_org_id_idx ON agents(org_id);

CREATE TABLE audit_log (
  id         bigserial PRIMARY KEY,
  org_id     text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  actor_id   text REFERENCES users(id) ON DELETE SET NULL,
  action     text NOT NULL,               -- e.g. enrollment_token.created, server.deleted
  target     text NOT NULL DEFAULT '',
  details    jsonb NOT NULL DEFAULT '{}',
  at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_org_at_idx ON audit_log(org_id, at DESC);
