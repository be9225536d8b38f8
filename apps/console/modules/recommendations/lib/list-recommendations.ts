import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import type { RecommendationView } from "../types/recommendation";
import { summariseRecommendation } from "./summarise";

const statusOrder = { open: 0, snoozed: 1, applied: 2, dismissed: 3 } as const;

/** Names for the rows' servers, users and policies, one query each. */
async function namesFor(
  tx: OrgTransaction,
  orgId: string,
  rows: { serverId: string; statusChangedBy: string | null; appliedPolicyId: string | null }[],
) {
  const unique = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null))];
  const [servers, users, policies] = await Promise.all([
    tx.server.findMany({ where: { orgId, id: { in: unique(rows.map((r) => r.serverId)) } }, select: { id: true, hostname: true } }),
    // better-auth's users have no org_id; only the ids this organisation's rows name are read.
    tx.user.findMany({ where: { id: { in: unique(rows.map((r) => r.statusChangedBy)) } }, select: { id: true, name: true } }),
    tx.policy.findMany({ where: { orgId, id: { in: unique(rows.map((r) => r.appliedPolicyId)) } }, select: { id: true, name: true } }),
  ]);
  return {
    hostnames: new Map(servers.map((s) => [s.id, s.hostname])),
    users: new Map(users.map((u) => [u.id, u.name])),
    policies: new Map(policies.map((p) => [p.id, p.name])),
  };
}

/**
 * The organisation's recommendations (or one server's): those that hold today (open, snoozed,
 * dismissed; a finding the worker no longer makes is left out) and every applied one, whose
 * prediction and realised effect stay as history. Open first, newest first within a status.
 */
export async function listRecommendations(db: Db, orgId: string, filter: { serverId?: string } = {}): Promise<RecommendationView[]> {
  return inOrg(db, orgId, async (tx) => {
    const rows = await tx.recommendation.findMany({
      where: { orgId, ...(filter.serverId ? { serverId: filter.serverId } : {}), OR: [{ resolvedAt: null }, { status: "applied" }] },
      orderBy: [{ firstSeenAt: "desc" }, { id: "asc" }],
    });
    const names = await namesFor(tx, orgId, rows);
    return rows.map((row) => summariseRecommendation(row, names)).sort((a, b) => statusOrder[a.status] - statusOrder[b.status]);
  });
}

export async function readRecommendation(tx: OrgTransaction, orgId: string, id: string): Promise<RecommendationView | null> {
  const row = await tx.recommendation.findFirst({ where: { orgId, id } });
  return row ? summariseRecommendation(row, await namesFor(tx, orgId, [row])) : null;
}
