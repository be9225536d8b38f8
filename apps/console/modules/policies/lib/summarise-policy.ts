// Prisma rows → the API's policy shapes. Authors are looked up in one query per answer.
import type { IdentityTables } from "@/lib/db";
import type { AssignmentScope, AssignmentSummary, Author, PolicyVersionSummary } from "../types/policy";
import { orderLikeSchema } from "./display-order";

export const assignmentSelect = {
  id: true,
  policyId: true,
  scope: true,
  tag: true,
  serverId: true,
  createdAt: true,
  policy: { select: { name: true } },
  server: { select: { hostname: true } },
} as const;

interface AssignmentRow {
  id: string;
  policyId: string;
  scope: string;
  tag: string | null;
  serverId: string | null;
  createdAt: Date;
  policy: { name: string };
  server: { hostname: string } | null;
}

export function summariseAssignment(row: AssignmentRow): AssignmentSummary {
  return {
    id: row.id,
    policyId: row.policyId,
    policyName: row.policy.name,
    scope: row.scope as AssignmentScope,
    tag: row.tag,
    serverId: row.serverId,
    serverHostname: row.server?.hostname ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Organisation default first, then tags and servers by name: the order layers apply in. */
export function compareAssignments(a: AssignmentSummary, b: AssignmentSummary): number {
  const rank = { organization: 0, tag: 1, server: 2 } as const;
  const label = (x: AssignmentSummary) => x.tag ?? x.serverHostname ?? "";
  return rank[a.scope] - rank[b.scope] || (label(a) < label(b) ? -1 : label(a) > label(b) ? 1 : 0);
}

/** Names of users (an identity table: readable in any unit of work, organisation-scoped or not). */
export async function findAuthors(db: Pick<IdentityTables, "user">, ids: Iterable<string | null>): Promise<Map<string, Author>> {
  const wanted = [...new Set([...ids].filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const users = await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } });
  return new Map(users.map((user) => [user.id, user]));
}

interface VersionRow {
  id: string;
  version: number;
  document: unknown;
  comment: string;
  createdAt: Date;
  createdBy: string | null;
}

export function summariseVersion(row: VersionRow, authors: Map<string, Author>): PolicyVersionSummary {
  return {
    id: row.id,
    version: row.version,
    document: orderLikeSchema(row.document as Record<string, unknown>),
    comment: row.comment,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy ? (authors.get(row.createdBy) ?? null) : null,
  };
}
