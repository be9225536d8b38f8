-- The gateways' public signing keys, for the console to pin (issue 25, L4). Every gateway signs
-- SHA256SUMS with Ed25519 (install.sh checks it) and with an ECDSA P-256 key derived from it
-- (Windows can verify P-256 with .NET; it has no Ed25519). Each gateway records its P-256 public
-- key here when it starts and every hour; the console puts the keys seen recently into the
-- Windows one-liner, so the key that signs what a server downloads from the gateway reaches the
-- server through the console, not over the connection the download comes over.
CREATE TABLE gateway_signing_keys (
  algorithm     text NOT NULL CHECK (algorithm IN ('ecdsa-p256')),
  -- an uncompressed SEC 1 point: 0x04 || X || Y
  public_key    bytea NOT NULL CHECK (length(public_key) = 65 AND get_byte(public_key, 0) = 4),
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (algorithm, public_key)
);

GRANT SELECT, INSERT, UPDATE ON gateway_signing_keys TO spindle_gateway;
GRANT SELECT ON gateway_signing_keys TO spindle_console;
