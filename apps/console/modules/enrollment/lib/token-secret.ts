// Enrolment token secrets: `spe_` + 32 random bytes in base64url. The database keeps only the
// SHA-256 of the whole token string (UTF-8), which is what the gateway computes from the token an
// installer presents, plus a short hint so people can tell tokens apart in the list.
import { createHash, randomBytes } from "node:crypto";

export const TOKEN_PREFIX = "spe_";
const HINT_LENGTH = 4;

export function generateTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

export function hashTokenSecret(token: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash("sha256").update(token, "utf8").digest());
}

export function tokenHint(token: string): string {
  return token.slice(-HINT_LENGTH);
}
