import { inOrg, type Db } from "@/lib/db";
import type { AssignmentSummary } from "../types/policy";
import { assignmentSelect, compareAssignments, summariseAssignment } from "./summarise-policy";

/** What a policy can be assigned to in the organisation, and what is assigned where already. */
export async function listAssignmentTargets(
  db: Db,
  orgId: string,
): Promise<{
  servers: { id: string; hostname: string; tags: string[] }[];
  tags: string[];
  assignments: AssignmentSummary[];
}> {
  const [servers, assignments] = await inOrg(
    db,
    orgId,
    async (tx) =>
      [
        await tx.server.findMany({ where: { orgId }, select: { id: true, hostname: true, tags: true }, orderBy: { hostname: "asc" } }),
        await tx.policyAssignment.findMany({ where: { orgId }, select: assignmentSelect }),
      ] as const,
  );
  const tags = new Set(servers.flatMap((server) => server.tags));
  for (const assignment of assignments) if (assignment.tag) tags.add(assignment.tag);
  return {
    servers: servers.map(({ id, hostname, tags }) => ({ id, hostname, tags })),
    tags: [...tags].sort(),
    assignments: assignments.map(summariseAssignment).sort(compareAssignments),
  };
}
