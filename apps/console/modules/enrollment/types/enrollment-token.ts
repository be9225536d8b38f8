import { z } from "zod";

export const tokenLifetimes = { "1h": 3600, "24h": 24 * 3600, "7d": 7 * 24 * 3600 } as const;
export type TokenLifetime = keyof typeof tokenLifetimes;

export const createEnrollmentTokenInput = z.object({
  label: z.string().trim().max(100, "Keep the label under 100 characters.").default(""),
  expiresIn: z.enum(["1h", "24h", "7d"]).default("24h"),
});
export type CreateEnrollmentTokenInput = z.input<typeof createEnrollmentTokenInput>;

export type EnrollmentTokenStatus = "active" | "expired" | "revoked";

/** A token as lists show it: never the secret, only its last characters. */
export interface EnrollmentTokenSummary {
  id: string;
  label: string;
  hint: string;
  status: EnrollmentTokenStatus;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  uses: number;
  lastUsedAt: string | null;
}

/** Returned once, when the token is created: the only time the secret leaves the server. */
export interface CreatedEnrollmentToken extends EnrollmentTokenSummary {
  token: string;
  /** The gateway the commands point at (its transport decides what the page says first). */
  gatewayUrl: string;
  /** Linux: install.sh through sh, which takes root rights through sudo when not run as root. */
  installCommand: string;
  /**
   * Windows: an elevated PowerShell line that checks the gateway's signature, then runs
   * spindle-agent.exe install; null until a gateway has recorded the signing key it pins.
   */
  windowsInstallCommand: string | null;
}
