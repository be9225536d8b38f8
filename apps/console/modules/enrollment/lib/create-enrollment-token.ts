import { inOrg, type Db } from "@/lib/db";
import type { OrgContext } from "@/modules/auth/types/context";
import {
  createEnrollmentTokenInput,
  tokenLifetimes,
  type CreateEnrollmentTokenInput,
  type CreatedEnrollmentToken,
} from "../types/enrollment-token";
import { installCommand, windowsInstallCommand } from "./install-command";
import { pinnedWindowsKeys } from "./signing-keys";
import { summariseToken, tokenSummarySelect } from "./summarise-token";
import { generateTokenSecret, hashTokenSecret, tokenHint } from "./token-secret";

interface Options {
  gatewayUrl: string;
  now?: Date;
}

/**
 * Creates an enrolment token for the caller's organisation and records it in the audit log.
 * The secret is returned here and nowhere else: only its hash is stored.
 */
export async function createEnrollmentToken(
  db: Db,
  context: Pick<OrgContext, "orgId" | "userId">,
  rawInput: CreateEnrollmentTokenInput,
  { gatewayUrl, now = new Date() }: Options,
): Promise<CreatedEnrollmentToken> {
  const input = createEnrollmentTokenInput.parse(rawInput);
  const token = generateTokenSecret();
  const expiresAt = new Date(now.getTime() + tokenLifetimes[input.expiresIn] * 1000);

  const row = await inOrg(db, context.orgId, async (tx) => {
    const created = await tx.enrollmentToken.create({
      data: {
        orgId: context.orgId,
        label: input.label,
        tokenHash: hashTokenSecret(token),
        tokenHint: tokenHint(token),
        createdBy: context.userId,
        createdAt: now,
        expiresAt,
      },
      select: tokenSummarySelect,
    });
    await tx.auditLog.create({
      data: {
        orgId: context.orgId,
        actorId: context.userId,
        action: "enrollment_token.created",
        target: created.id,
        details: { label: input.label, expiresIn: input.expiresIn, expiresAt: expiresAt.toISOString() },
      },
    });
    return created;
  });

  const keys = await pinnedWindowsKeys(db, context.orgId);
  return {
    ...summariseToken(row, now),
    token,
    gatewayUrl,
    installCommand: installCommand(gatewayUrl, token),
    windowsInstallCommand: keys.length > 0 ? windowsInstallCommand(gatewayUrl, token, keys) : null,
  };
}
