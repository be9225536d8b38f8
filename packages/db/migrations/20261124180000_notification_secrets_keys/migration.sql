-- Channel secrets sealed at rest (docs/notifications.md, "Secrets at rest"). The workers hold one
-- X25519 private key outside the database (SPINDLE_NOTIFY_SECRETS_KEY_FILE) and register its
-- public half here at start; the console seals new and changed secrets to the most recently
-- registered key and can never open them. Not tenant data: one key serves every organisation.
CREATE TABLE notification_secrets_keys (
  kid            text PRIMARY KEY CHECK (kid ~ '^[0-9a-f]{16}$'),  -- first 8 bytes of SHA-256(public key DER), hex
  public_key     text NOT NULL CHECK (length(public_key) BETWEEN 40 AND 200),  -- DER SubjectPublicKeyInfo, base64
  registered_at  timestamptz NOT NULL DEFAULT now()
);

REVOKE ALL ON notification_secrets_keys FROM PUBLIC;
GRANT SELECT ON notification_secrets_keys TO spindle_console;
GRANT SELECT, INSERT, UPDATE ON notification_secrets_keys TO spindle_worker, spindle_system;
