import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import type { PolicySummary } from "../types/policy";
import { assignmentSelect, compareAssignments, findAuthors, summariseAssignment, summariseVersion } from "./summarise-policy";

/** The organisation's policies by name, each with its latest version and where it is assigned. */
export async function listPolicies(db: Db, orgId: string, options: { includeArchived?: boolean } = {}): Promise<PolicySummary[]> {
  return inOrg(db, orgId, (tx) => readPolicies(tx, orgId, options));
}

async function readPolicies(
  tx: OrgTransaction,
  orgId: string,
  { includeArchived = false }: { includeArchived?: boolean },
): Promise<PolicySummary[]> {
  const rows = await tx.policy.findMany({
    where: { orgId, ...(includeArchived ? {} : { archivedAt: null }) },
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      description: true,
      createdAt: true,
      archivedAt: true,
      versions: { orderBy: { version: "desc" }, take: 1 },
      assignments: { select: assignmentSelect },
    },
  });
  const authors = await findAuthors(
    tx,
    rows.map((row) => row.versions[0]?.createdBy ?? null),
  );
  return rows.flatMap((row) => {
    const latest = row.versions[0];
    if (!latest) return [];
    const { document: _document, ...latestVersion } = summariseVersion(latest, authors);
    return [
      {
        id: row.id,
        name: row.name,
        description: row.description,
        createdAt: row.createdAt.toISOString(),
        archivedAt: row.archivedAt?.toISOString() ?? null,
        latestVersion,
        assignments: row.assignments.map(summariseAssignment).sort(compareAssignments),
      },
    ];
  });
}
