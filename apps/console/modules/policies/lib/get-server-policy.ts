import { inOrg, type Db, type OrgTransaction } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { ServerPolicyView } from "../types/policy";
import { effectivePolicyOfServer } from "./effective-policy";
import { describePolicyStatus } from "./policy-status";

/** A server's tags, effective policy with its layers, and what its agent reported. */
export async function getServerPolicy(db: Db, orgId: string, serverId: string): Promise<ServerPolicyView> {
  return inOrg(db, orgId, (tx) => readServerPolicy(tx, orgId, serverId));
}

async function readServerPolicy(tx: OrgTransaction, orgId: string, serverId: string): Promise<ServerPolicyView> {
  const server = isUuid(serverId)
    ? await tx.server.findFirst({
        where: { id: serverId, orgId },
        select: { id: true, hostname: true, tags: true, agentVersion: true, policyStatus: true },
      })
    : null;
  if (!server) throw notFound("This server");
  const effective = await effectivePolicyOfServer(tx, orgId, server);
  return {
    serverId: server.id,
    hostname: server.hostname,
    tags: server.tags,
    effective,
    status: describePolicyStatus(effective, server.policyStatus, server.agentVersion),
  };
}
