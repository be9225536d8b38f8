import type { EnrollmentTokenStatus, EnrollmentTokenSummary } from "../types/enrollment-token";

interface TokenRow {
  id: string;
  label: string;
  tokenHint: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  uses: number;
  lastUsedAt: Date | null;
}

export const tokenSummarySelect = {
  id: true,
  label: true,
  tokenHint: true,
  createdAt: true,
  expiresAt: true,
  revokedAt: true,
  uses: true,
  lastUsedAt: true,
} as const;

export function tokenStatus(row: Pick<TokenRow, "expiresAt" | "revokedAt">, now: Date): EnrollmentTokenStatus {
  if (row.revokedAt) return "revoked";
  return row.expiresAt.getTime() <= now.getTime() ? "expired" : "active";
}

export function summariseToken(row: TokenRow, now: Date): EnrollmentTokenSummary {
  return {
    id: row.id,
    label: row.label,
    hint: row.tokenHint,
    status: tokenStatus(row, now),
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    uses: row.uses,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
