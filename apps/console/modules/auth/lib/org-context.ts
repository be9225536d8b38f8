// Resolves the signed-in user and their organisation for a request. API routes get a problem
// (401 / 403); pages get a redirect (see page-context.ts).
import { database, identityTables } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import type { OrgContext } from "../types/context";
import { isRoleName } from "./access";
import { auth } from "./auth";

export type OrgContextResult =
  | { kind: "ok"; context: OrgContext }
  | { kind: "signed-out" }
  | { kind: "no-organisation"; userName: string };

/**
 * The session's active organisation if the user still belongs to it; otherwise their oldest
 * membership (a session that predates their first organisation, or an organisation they left).
 */
async function findMembership(userId: string, activeOrgId: string | null | undefined) {
  const include = { organization: { select: { name: true } } } as const;
  const members = identityTables(database()).member;
  const active = activeOrgId
    ? await members.findFirst({ where: { userId, organizationId: activeOrgId }, include })
    : null;
  return active ?? (await members.findFirst({ where: { userId }, orderBy: { createdAt: "asc" }, include }));
}

export async function resolveOrgContext(headers: Headers): Promise<OrgContextResult> {
  const session = await auth().api.getSession({ headers });
  if (!session) return { kind: "signed-out" };
  const member = await findMembership(session.user.id, session.session.activeOrganizationId);
  if (!member || !isRoleName(member.role)) return { kind: "no-organisation", userName: session.user.name };
  return {
    kind: "ok",
    context: {
      userId: session.user.id,
      userName: session.user.name,
      userEmail: session.user.email,
      orgId: member.organizationId,
      orgName: member.organization.name,
      role: member.role,
    },
  };
}

export async function requireOrgContext(headers: Headers): Promise<OrgContext> {
  const result = await resolveOrgContext(headers);
  if (result.kind === "signed-out") throw new ProblemError(401, "Unauthorized", "Sign in to use the Spindle API.");
  if (result.kind === "no-organisation")
    throw new ProblemError(403, "No organisation", "Create or join an organisation first.");
  return result.context;
}
