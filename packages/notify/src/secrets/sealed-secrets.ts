// Channel secrets at rest (docs/notifications.md, "Secrets at rest"): sealed to the workers' key
// with X25519 + HKDF-SHA256 + AES-256-GCM, so the database, its dumps and its backups hold no
// SMTP password, webhook URL or routing key in the clear. The console only seals (it holds the
// public key, read from the database); only a worker, holding the private key outside the
// database, opens. Each sealed value is bound to its organisation and channel (the GCM
// associated data): copied to another row it no longer opens.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from "node:crypto";
import { z } from "zod";

const ALGORITHM = "X25519-HKDF-SHA256-A256GCM";
const INFO = Buffer.from("spindle notification channel secrets v1");

/** How sealed secrets are stored in notification_channels.secrets (a JSON object). */
export const sealedSecretsSchema = z.strictObject({
  sealed: z.literal(1),
  alg: z.literal(ALGORITHM),
  kid: z.string().regex(/^[0-9a-f]{16}$/),
  epk: z.base64(),
  iv: z.base64(),
  ct: z.base64(),
});
export type SealedSecrets = z.infer<typeof sealedSecretsSchema>;

/** Secrets stored before sealing existed are a plain object without the `sealed` marker. */
export function isSealed(stored: unknown): boolean {
  return typeof stored === "object" && stored !== null && "sealed" in stored;
}

/** What a sealed value is bound to: it opens only for the same organisation and channel. */
export function secretsBinding(orgId: string, channelId: string): string {
  return `notification_channels/${orgId}/${channelId}`;
}

/** The key id: the first 8 bytes of SHA-256 over the public key's DER, in hex. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ format: "der", type: "spki" }))
    .digest("hex")
    .slice(0, 16);
}

/** A fresh key pair for `SPINDLE_NOTIFY_SECRETS_KEY_FILE` (the private key, PEM). */
export function generateSecretsKey(): { privateKeyPem: string } {
  const { privateKey } = generateKeyPairSync("x25519");
  return { privateKeyPem: privateKey.export({ format: "pem", type: "pkcs8" }).toString() };
}

function contentKey(shared: Buffer, ephemeral: Buffer, recipient: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", shared, Buffer.concat([ephemeral, recipient]), INFO, 32));
}

/** Seals to a public key (DER SPKI, base64), as the console does. */
export class SecretsSealer {
  readonly kid: string;
  private readonly recipient: KeyObject;
  private readonly recipientDer: Buffer;

  constructor(publicKeyDerBase64: string) {
    this.recipient = createPublicKey({ key: Buffer.from(publicKeyDerBase64, "base64"), format: "der", type: "spki" });
    if (this.recipient.asymmetricKeyType !== "x25519") throw new Error("the notification secrets key must be an X25519 key");
    this.recipientDer = this.recipient.export({ format: "der", type: "spki" });
    this.kid = keyIdOf(this.recipient);
  }

  seal(binding: string, secrets: Record<string, unknown>): SealedSecrets {
    const ephemeral = generateKeyPairSync("x25519");
    const epk = ephemeral.publicKey.export({ format: "der", type: "spki" });
    const key = contentKey(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: this.recipient }), epk, this.recipientDer);
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(Buffer.from(binding));
    const ct = Buffer.concat([cipher.update(JSON.stringify(secrets), "utf8"), cipher.final(), cipher.getAuthTag()]);
    return { sealed: 1, alg: ALGORITHM, kid: this.kid, epk: epk.toString("base64"), iv: iv.toString("base64"), ct: ct.toString("base64") };
  }
}

/** Opens what was sealed to this private key (PEM, PKCS#8), as the worker does. */
export class SecretsOpener {
  readonly kid: string;
  /** The public half, DER SPKI in base64, which the worker registers for the console. */
  readonly publicKey: string;
  private readonly privateKey: KeyObject;
  private readonly publicDer: Buffer;

  constructor(privateKeyPem: string) {
    this.privateKey = createPrivateKey({ key: privateKeyPem, format: "pem" });
    if (this.privateKey.asymmetricKeyType !== "x25519") {
      throw new Error("the notification secrets key must be an X25519 private key (openssl genpkey -algorithm X25519)");
    }
    const publicKey = createPublicKey(this.privateKey);
    this.publicDer = publicKey.export({ format: "der", type: "spki" });
    this.publicKey = this.publicDer.toString("base64");
    this.kid = keyIdOf(publicKey);
  }

  /** The stored secrets in the clear; a plain (unsealed) object as stored before sealing existed. */
  open(binding: string, stored: unknown): Record<string, unknown> {
    if (!isSealed(stored)) return (stored ?? {}) as Record<string, unknown>;
    const parsed = sealedSecretsSchema.safeParse(stored);
    if (!parsed.success) throw new Error("the channel's stored secrets are not a sealed value this version understands");
    const sealed = parsed.data;
    if (sealed.kid !== this.kid) {
      throw new Error(
        `the channel's secrets are sealed to key ${sealed.kid} but this worker holds key ${this.kid}: ` +
          "give every worker the same SPINDLE_NOTIFY_SECRETS_KEY_FILE, or enter the channel's secrets again",
      );
    }
    const epk = Buffer.from(sealed.epk, "base64");
    const shared = diffieHellman({ privateKey: this.privateKey, publicKey: createPublicKey({ key: epk, format: "der", type: "spki" }) });
    const ct = Buffer.from(sealed.ct, "base64");
    const decipher = createDecipheriv("aes-256-gcm", contentKey(shared, epk, this.publicDer), Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(binding));
    decipher.setAuthTag(ct.subarray(ct.length - 16));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(ct.subarray(0, ct.length - 16)), decipher.final()]);
    } catch {
      throw new Error("the channel's sealed secrets do not open: they were altered or belong to another channel; enter them again");
    }
    return JSON.parse(plain.toString("utf8")) as Record<string, unknown>;
  }
}
