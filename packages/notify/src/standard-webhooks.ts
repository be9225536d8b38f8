// Signing per the Standard Webhooks specification (standardwebhooks.com): the signed content is
// `${id}.${timestamp}.${body}`, the key is the base64 after "whsec_", and the header carries
// "v1,<base64 HMAC-SHA256>". Retries keep the id and get a new timestamp and signature.
import { createHmac, timingSafeEqual } from "node:crypto";

export interface StandardWebhookHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

function signingKey(secret: string): Buffer {
  if (!secret.startsWith("whsec_")) throw new Error("a Standard Webhooks secret starts with whsec_");
  return Buffer.from(secret.slice("whsec_".length), "base64");
}

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  return createHmac("sha256", signingKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
}

export function standardWebhookHeaders(secret: string, id: string, body: string, now = new Date()): StandardWebhookHeaders {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": `v1,${signatureOf(secret, id, timestamp, body)}`,
  };
}

/**
 * What a receiver does: recompute the signature over the raw body and compare in constant time
 * with each space-separated v1 signature, refusing timestamps more than `toleranceSeconds` away.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Partial<Record<keyof StandardWebhookHeaders, string>>,
  body: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): boolean {
  const id = headers["webhook-id"];
  const timestamp = Number(headers["webhook-timestamp"]);
  const signatures = headers["webhook-signature"];
  if (!id || !signatures || !Number.isInteger(timestamp)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signatureOf(secret, id, timestamp, body), "base64");
  return signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",", 2);
    if (version !== "v1" || !value) return false;
    const candidate = Buffer.from(value, "base64");
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}
