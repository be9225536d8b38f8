// Which key channel secrets are sealed to: the workers register theirs at start, the console
// seals to the most recently registered one (migration 20261124180000_notification_secrets_keys).
import { SecretsSealer, type SecretsOpener } from "../secrets/sealed-secrets.js";
import type { Queryable } from "./queryable.js";

/** No worker has registered a key yet, so secrets cannot be sealed: the console answers 503. */
export class SecretsKeyMissingError extends Error {
  constructor() {
    super(
      "no worker has registered a key to seal channel secrets with yet: start a Spindle worker " +
        "(with SPINDLE_NOTIFY_SECRETS_KEY_FILE set) and try again",
    );
    this.name = "SecretsKeyMissingError";
  }
}

/** Run by each worker at start; registering the same key again only refreshes its date. */
export async function registerSecretsKey(db: Queryable, opener: SecretsOpener): Promise<void> {
  await db.query(
    `INSERT INTO notification_secrets_keys (kid, public_key) VALUES ($1, $2)
     ON CONFLICT (kid) DO UPDATE SET registered_at = now()`,
    [opener.kid, opener.publicKey],
  );
}

export async function currentSealer(db: Queryable): Promise<SecretsSealer> {
  const { rows } = await db.query(`SELECT public_key FROM notification_secrets_keys ORDER BY registered_at DESC, kid LIMIT 1`);
  if (!rows[0]) throw new SecretsKeyMissingError();
  return new SecretsSealer(rows[0].public_key);
}
