// The gateways' ECDSA P-256 public keys the Windows one-liner pins (issue 25, L4). Each gateway
// records the key it signs SHA256SUMS with (gateway_signing_keys, at start and hourly); the
// console hands the keys seen within the last week to the one-liner, so the key that checks what
// a server downloads from the gateway reaches the server through the console, not over the
// connection the download uses. Several keys when gateways were rotated (or disagree): a signature
// by any of them is accepted.
import { inOrgSql, type Db } from "@/lib/db";
import { eccPublicBlob } from "./install-command";

const recentDays = 7;
const maxKeys = 4;

/** The keys to pin, newest first, as base64 ECCPUBLIC blobs; empty when no gateway recorded one. */
export async function pinnedWindowsKeys(db: Db, orgId: string): Promise<string[]> {
  const rows = await inOrgSql(
    db,
    orgId,
    async (sql) =>
      (
        await sql.query<{ public_key: Buffer }>(
          `SELECT public_key FROM gateway_signing_keys
       WHERE algorithm = 'ecdsa-p256' AND last_seen_at > now() - make_interval(days => $1)
       ORDER BY last_seen_at DESC LIMIT $2`,
          [recentDays, maxKeys],
        )
      ).rows,
  );
  return rows.map((row) => eccPublicBlob(row.public_key).toString("base64"));
}
