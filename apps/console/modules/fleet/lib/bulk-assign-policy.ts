// Makes one policy the own policy of many servers, confirmed by the user first (the preview says
// how many servers change and whose own policy is replaced). The change goes through
// modules/rollouts' startChange like every policy change: by default (the organisation's setting)
// a rollout over the servers it changes, a canary first; "Apply now" assigns them at once.
//
// The same rules as a single assignment (modules/policies/lib/assign-policy.ts): the policy row
// is locked first so an archive cannot slip in between, an archived policy is refused, a server
// has at most one own policy (assigning replaces it, via the partial unique index), and every
// server that changes gets the same audit entry a single assignment writes (policy.assigned).
import type { OrgSql } from "@/lib/db";
import { notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { BulkResult } from "../types/bulk";
import type { BulkServer } from "./bulk-targets";
import { serverSlots } from "@/modules/rollouts/lib/slots";
import { sqlOfPg } from "@/modules/rollouts/lib/sql";
import { startChange } from "@/modules/rollouts/lib/start-change";
import type { Delivery } from "@/modules/rollouts/types/rollout";

type Actor = { orgId: string; userId: string };

export async function assignPolicyToServers(
  sql: OrgSql,
  actor: Actor,
  policyId: string,
  servers: BulkServer[],
  preview: boolean,
  bulkId: string,
  delivery?: Delivery,
): Promise<BulkResult> {
  if (!isUuid(policyId)) throw notFound("This policy");
  const {
    rows: [policy],
  } = await sql.query<{ name: string; archived: boolean }>(
    "SELECT name, archived_at IS NOT NULL AS archived FROM policies WHERE id = $1 AND org_id = $2 FOR UPDATE",
    [policyId, actor.orgId],
  );
  if (!policy) throw notFound("This policy");
  if (policy.archived) throw new ProblemError(409, "Policy archived", `"${policy.name}" is archived; restore it before assigning it.`);

  const ids = servers.map((server) => server.id);
  const { rows: current } = await sql.query<{ serverId: string; policyId: string; name: string }>(
    `SELECT a.server_id::text AS "serverId", a.policy_id::text AS "policyId", p.name
     FROM policy_assignments a JOIN policies p ON p.id = a.policy_id AND p.org_id = a.org_id
     WHERE a.org_id = $1 AND a.scope = 'server' AND a.server_id = ANY($2::uuid[])`,
    [actor.orgId, ids],
  );
  const hostnames = new Map(servers.map((server) => [server.id, server.hostname]));
  const already = current.filter((row) => row.policyId === policyId).length;
  const replaced = current
    .filter((row) => row.policyId !== policyId)
    .map((row) => ({ serverId: row.serverId, hostname: hostnames.get(row.serverId) ?? row.serverId, policy: row.name }))
    .sort((a, b) => a.hostname.localeCompare(b.hostname));
  const result = {
    action: "assign-policy" as const,
    preview,
    servers: servers.length,
    changed: servers.length - already,
    unchanged: already,
    replaced,
  };
  if (preview) return { ...result, bulkId: null };
  if (result.changed === 0) return { ...result, bulkId };

  const rolloutSql = sqlOfPg(sql);
  const slots = await serverSlots(rolloutSql, actor.orgId, ids, policyId);
  const outcome = await startChange(
    rolloutSql,
    actor,
    {
      kind: "assignment",
      title: `Assign “${policy.name}” to ${servers.length} server${servers.length === 1 ? "" : "s"}`,
      policyId,
      slots,
    },
    delivery,
    async () => {
      await sql.query(
        `WITH target AS (
         SELECT id, hostname FROM servers WHERE org_id = $1 AND id = ANY($2::uuid[])
       ), before AS (
         SELECT a.server_id, p.name FROM policy_assignments a JOIN policies p ON p.id = a.policy_id AND p.org_id = a.org_id
         WHERE a.org_id = $1 AND a.scope = 'server' AND a.server_id = ANY($2::uuid[]) AND a.policy_id <> $3::uuid
       ), upserted AS (
         INSERT INTO policy_assignments AS a (org_id, policy_id, scope, server_id, created_by)
         SELECT $1, $3::uuid, 'server', id, $4 FROM target
         ON CONFLICT (org_id, server_id) WHERE scope = 'server'
         DO UPDATE SET policy_id = EXCLUDED.policy_id, created_by = EXCLUDED.created_by, created_at = now()
         WHERE a.policy_id <> EXCLUDED.policy_id
         RETURNING a.server_id
       )
       INSERT INTO audit_log (org_id, actor_id, action, target, details)
       SELECT $1, $4, 'policy.assigned', $3::text,
         jsonb_build_object('name', $5::text, 'scope', 'server', 'target', 'server ' || target.hostname, 'hostname', target.hostname, 'serverId', target.id::text,
           'replaced', before.name, 'bulk', $6::jsonb)
       FROM upserted JOIN target ON target.id = upserted.server_id LEFT JOIN before ON before.server_id = upserted.server_id`,
        [
          actor.orgId,
          ids,
          policyId,
          actor.userId,
          policy.name,
          JSON.stringify({ id: bulkId, action: "assign-policy", servers: servers.length }),
        ],
      );
    },
  );
  return { ...result, bulkId, delivery: outcome };
}
