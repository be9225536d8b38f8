import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { PolicyDetail } from "../types/policy";
import { assignmentSelect, compareAssignments, findAuthors, summariseAssignment, summariseVersion } from "./summarise-policy";

/**
 * One policy of the organisation with every version, newest first. Another organisation's
 * policy is "not found", exactly like one that does not exist.
 */
export async function getPolicy(db: Db, orgId: string, policyId: string): Promise<PolicyDetail> {
  return inOrg(db, orgId, (tx) => readPolicy(tx, orgId, policyId));
}

/** getPolicy inside a unit of work that is already open (after a change, in its transaction). */
export async function readPolicy(tx: OrgTransaction, orgId: string, policyId: string): Promise<PolicyDetail> {
  const row = isUuid(policyId)
    ? await tx.policy.findFirst({
        where: { id: policyId, orgId },
        select: {
          id: true,
          name: true,
          description: true,
          createdAt: true,
          archivedAt: true,
          versions: { orderBy: { version: "desc" } },
          assignments: { select: assignmentSelect },
        },
      })
    : null;
  if (!row) throw notFound("This policy");
  const authors = await findAuthors(
    tx,
    row.versions.map((version) => version.createdBy),
  );
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    archivedAt: row.archivedAt?.toISOString() ?? null,
    versions: row.versions.map((version) => summariseVersion(version, authors)),
    assignments: row.assignments.map(summariseAssignment).sort(compareAssignments),
  };
}
