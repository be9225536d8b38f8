// SSO client secrets at rest (docs/configure.md, "Single sign-on"): sealed with AES-256-GCM under
// a key derived from BETTER_AUTH_SECRET (HKDF-SHA256), so the database, its dumps and backups
// never hold a client secret in the clear, as with notification channel secrets. Unlike those,
// the console itself must open it (it exchanges the authorisation code), so the key lives with
// the console. Each sealed value is bound to its provider (the GCM associated data): copied to
// another organisation's provider row it no longer opens.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { z } from "zod";

const ALGORITHM = "HKDF-SHA256-A256GCM";
const INFO = Buffer.from("spindle sso client secrets v1");

export const sealedClientSecretSchema = z.strictObject({
  sealed: z.literal(1),
  alg: z.literal(ALGORITHM),
  kid: z.string().regex(/^[0-9a-f]{16}$/),
  iv: z.base64(),
  ct: z.base64(),
});
export type SealedClientSecret = z.infer<typeof sealedClientSecretSchema>;

export function isSealedClientSecret(value: unknown): value is SealedClientSecret {
  return typeof value === "object" && value !== null && "sealed" in value;
}

/** What a sealed secret is bound to: the provider id, which names its organisation. */
export function clientSecretBinding(providerId: string): string {
  return `sso_providers/${providerId}`;
}

export class ClientSecretBox {
  readonly kid: string;
  private readonly key: Buffer;

  constructor(authSecret: string) {
    this.key = Buffer.from(hkdfSync("sha256", Buffer.from(authSecret, "utf8"), Buffer.alloc(0), INFO, 32));
    this.kid = createHash("sha256").update(this.key).digest("hex").slice(0, 16);
  }

  seal(binding: string, secret: string): SealedClientSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(binding));
    const ct = Buffer.concat([cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return { sealed: 1, alg: ALGORITHM, kid: this.kid, iv: iv.toString("base64"), ct: ct.toString("base64") };
  }

  open(binding: string, stored: unknown): string {
    const parsed = sealedClientSecretSchema.safeParse(stored);
    if (!parsed.success)
      throw new Error("the SSO client secret is not a sealed value this version understands: enter it again in Settings → Security");
    const sealed = parsed.data;
    if (sealed.kid !== this.kid) {
      throw new Error("the SSO client secret was sealed under another BETTER_AUTH_SECRET: enter it again in Settings → Security");
    }
    const ct = Buffer.from(sealed.ct, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(binding));
    decipher.setAuthTag(ct.subarray(ct.length - 16));
    try {
      return Buffer.concat([decipher.update(ct.subarray(0, ct.length - 16)), decipher.final()]).toString("utf8");
    } catch {
      throw new Error(
        "the SSO client secret does not open: it was altered or belongs to another provider; enter it again in Settings → Security",
      );
    }
  }
}

/** oidc_config as stored: the plugin's JSON with clientSecret replaced by its sealed form. */
export function sealOidcConfig(box: ClientSecretBox, providerId: string, json: string): string {
  const config = JSON.parse(json) as Record<string, unknown>;
  if (typeof config.clientSecret === "string") config.clientSecret = box.seal(clientSecretBinding(providerId), config.clientSecret);
  return JSON.stringify(config);
}

/** oidc_config as the plugin reads it: the client secret in the clear, in memory only. */
export function openOidcConfig(box: ClientSecretBox, providerId: string, json: string): string {
  const config = JSON.parse(json) as Record<string, unknown>;
  if (isSealedClientSecret(config.clientSecret)) config.clientSecret = box.open(clientSecretBinding(providerId), config.clientSecret);
  return JSON.stringify(config);
}
