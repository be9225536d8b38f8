// Seeds what a signed-in user would have created in the console: an organisation and an
// enrolment token (stored as the SHA-256 of the whole token, as the console does).
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";

export async function seedOrganisationWithToken(db: pg.Client, slug: string): Promise<{ orgId: string; token: string }> {
  const orgId = randomUUID();
  await db.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $2, $3)", [orgId, slug, slug]);
  return { orgId, token: await seedToken(db, orgId) };
}

/** Another enrolment token of the organisation, valid for an hour. */
export async function seedToken(db: Pick<pg.Client, "query">, orgId: string): Promise<string> {
  const token = `spe_${randomBytes(24).toString("base64url")}`;
  await db.query(
    `INSERT INTO enrollment_tokens (org_id, label, token_hash, token_hint, expires_at)
     VALUES ($1, 'integration', $2, $3, now() + interval '1 hour')`,
    [orgId, createHash("sha256").update(token).digest(), token.slice(-4)],
  );
  return token;
}
