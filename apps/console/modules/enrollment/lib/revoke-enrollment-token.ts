import { inOrg, type Db } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { OrgContext } from "@/modules/auth/types/context";
import type { EnrollmentTokenSummary } from "../types/enrollment-token";
import { summariseToken, tokenSummarySelect } from "./summarise-token";

/**
 * Revokes a token of the caller's organisation; agents already enrolled with it keep their own
 * credentials. Revoking twice is harmless. Another organisation's token is "not found".
 */
export async function revokeEnrollmentToken(
  db: Db,
  context: Pick<OrgContext, "orgId" | "userId">,
  tokenId: string,
  now = new Date(),
): Promise<EnrollmentTokenSummary> {
  if (!isUuid(tokenId)) throw notFound("This enrolment token");
  return inOrg(db, context.orgId, async (tx) => {
    const revoked = await tx.enrollmentToken.updateMany({
      where: { id: tokenId, orgId: context.orgId, revokedAt: null },
      data: { revokedAt: now },
    });
    const row = await tx.enrollmentToken.findFirst({ where: { id: tokenId, orgId: context.orgId }, select: tokenSummarySelect });
    if (!row) throw notFound("This enrolment token");
    if (revoked.count > 0) {
      await tx.auditLog.create({
        data: {
          orgId: context.orgId,
          actorId: context.userId,
          action: "enrollment_token.revoked",
          target: tokenId,
          details: { label: row.label },
        },
      });
    }
    return summariseToken(row, now);
  });
}
