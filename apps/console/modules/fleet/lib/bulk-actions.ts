import { randomUUID } from "node:crypto";
import { inOrgSql, type Db } from "@/lib/db";
import { forbidden } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";
import { bulkActionSchema, type BulkActionInput, type BulkResult } from "../types/bulk";
import { assignPolicyToServers } from "./bulk-assign-policy";
import { revokeServers } from "./bulk-revoke";
import { tagServers, untagServers } from "./bulk-tags";
import { resolveBulkTargets } from "./bulk-targets";

export type BulkActor = Pick<OrgContext, "orgId" | "userId" | "role">;

/** The permission each action needs: the same as the single-server action it repeats. */
function requirePermission(actor: BulkActor, action: BulkResult["action"]): void {
  const allowed = action === "revoke" ? can(actor.role, { server: ["revoke"] }) : can(actor.role, { policy: ["assign"] });
  if (!allowed) throw forbidden(`Your role (${actor.role}) can read the fleet but not change it; ask an owner or admin.`);
}

/**
 * One action on many servers of the caller's organisation, all or nothing, in one transaction
 * under row-level security. `preview` answers what it would change and changes nothing (the
 * confirmation shows those figures). The role is checked here as well as in the route, so the
 * operation is safe whoever calls it.
 */
export async function runBulkAction(db: Db, actor: BulkActor, rawInput: BulkActionInput, now = new Date()): Promise<BulkResult> {
  const input = bulkActionSchema.parse(rawInput);
  requirePermission(actor, input.action);
  const bulkId = randomUUID();
  return inOrgSql(db, actor.orgId, async (sql) => {
    const servers = await resolveBulkTargets(sql, actor.orgId, input.target, now, input.action === "tag" || input.action === "untag");
    switch (input.action) {
      case "tag":
        return tagServers(sql, actor, servers, input.tag, input.preview, bulkId);
      case "untag":
        return untagServers(sql, actor, servers, input.tag, input.preview, bulkId);
      case "assign-policy":
        return assignPolicyToServers(sql, actor, input.policyId, servers, input.preview, bulkId);
      case "revoke":
        return revokeServers(sql, actor, servers, input.preview, bulkId, now);
    }
  });
}
