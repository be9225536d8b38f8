import type { Prisma } from "@/lib/db";
import type { AssignmentSummary } from "../types/policy";
import { assignmentSelect, compareAssignments, summariseAssignment } from "./summarise-policy";

/** What a policy can be assigned to in the organisation, and what is assigned where already. */
export async function listAssignmentTargets(db: Prisma, orgId: string): Promise<{
  servers: { id: string; hostname: string }[];
  tags: string[];
  assignments: AssignmentSummary[];
}> {
  const [servers, assignments] = await Promise.all([
    db.server.findMany({ where: { orgId }, select: { id: true, hostname: true, tags: true }, orderBy: { hostname: "asc" } }),
    db.policyAssignment.findMany({ where: { orgId }, select: assignmentSelect }),
  ]);
  const tags = new Set(servers.flatMap((server) => server.tags));
  for (const assignment of assignments) if (assignment.tag) tags.add(assignment.tag);
  return {
    servers: servers.map(({ id, hostname }) => ({ id, hostname })),
    tags: [...tags].sort(),
    assignments: assignments.map(summariseAssignment).sort(compareAssignments),
  };
}
