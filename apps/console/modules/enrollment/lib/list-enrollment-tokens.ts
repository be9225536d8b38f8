import type { Prisma } from "@/lib/db";
import type { EnrollmentTokenSummary } from "../types/enrollment-token";
import { summariseToken, tokenSummarySelect } from "./summarise-token";

/** The organisation's tokens, newest first; revoked and expired ones stay listed for the record. */
export async function listEnrollmentTokens(db: Prisma, orgId: string, now = new Date()): Promise<EnrollmentTokenSummary[]> {
  const rows = await db.enrollmentToken.findMany({
    where: { orgId },
    orderBy: { createdAt: "desc" },
    take: 200,
    select: tokenSummarySelect,
  });
  return rows.map((row) => summariseToken(row, now));
}
