import type { Prisma as PrismaTypes } from "@spindle/db";

export interface LockedPolicy {
  name: string;
  description: string;
  archived: boolean;
}

/**
 * Locks one policy row of the organisation for the rest of the transaction (null if there is
 * none). Saving a version, archiving and assigning all take this lock first, so an archive
 * cannot slip between an assignment's check and its insert, and version numbers never collide.
 */
export async function lockPolicy(tx: PrismaTypes.TransactionClient, orgId: string, policyId: string): Promise<LockedPolicy | null> {
  const rows = await tx.$queryRaw<LockedPolicy[]>`
    SELECT name, description, archived_at IS NOT NULL AS archived
    FROM policies WHERE id = ${policyId}::uuid AND org_id = ${orgId} FOR UPDATE`;
  return rows[0] ?? null;
}
