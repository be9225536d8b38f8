import { inOrg, type Db } from "@/lib/db";
import type { EnrollmentTokenSummary } from "../types/enrollment-token";
import { summariseToken, tokenSummarySelect } from "./summarise-token";

/** The organisation's tokens, newest first; revoked and expired ones stay listed for the record. */
export async function listEnrollmentTokens(db: Db, orgId: string, now = new Date()): Promise<EnrollmentTokenSummary[]> {
  const rows = await inOrg(db, orgId, (tx) =>
    tx.enrollmentToken.findMany({ where: { orgId }, orderBy: { createdAt: "desc" }, take: 200, select: tokenSummarySelect }),
  );
  return rows.map((row) => summariseToken(row, now));
}
