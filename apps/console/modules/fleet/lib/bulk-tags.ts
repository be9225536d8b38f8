// Tag or untag many servers in one statement each way. Tags decide which tag policies apply,
// so the database announces the change to the gateways at commit (the servers' tag trigger), as
// for a single server's edit. Every changed server gets its own audit entry, the same one a
// single edit writes (server.tags_changed, before and after), tied together by the bulk id.
import type { OrgSql } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import type { BulkResult } from "../types/bulk";
import type { BulkServer } from "./bulk-targets";

/** What serverTagsInput allows one server (modules/policies/types/policy.ts). */
const MAX_TAGS = 32;

type Actor = { orgId: string; userId: string };

export async function tagServers(
  sql: OrgSql,
  actor: Actor,
  servers: BulkServer[],
  tag: string,
  preview: boolean,
  bulkId: string,
): Promise<BulkResult> {
  const ids = servers.map((server) => server.id);
  const { rows: missing } = await sql.query<{ hostname: string; full: boolean }>(
    `SELECT hostname, cardinality(tags) >= ${MAX_TAGS} AS full FROM servers
     WHERE org_id = $1 AND id = ANY($2::uuid[]) AND NOT ($3 = ANY(tags)) ORDER BY hostname`,
    [actor.orgId, ids, tag],
  );
  const full = missing.filter((row) => row.full).map((row) => row.hostname);
  if (full.length > 0) {
    throw new ProblemError(
      409,
      "Too many tags",
      `${full.length === 1 ? "1 server carries" : `${full.length} servers carry`} ${MAX_TAGS} tags already (${full.slice(0, 5).join(", ")}${full.length > 5 ? ", …" : ""}): remove a tag from them first. Nothing was changed.`,
    );
  }
  const result = {
    action: "tag" as const,
    preview,
    servers: servers.length,
    changed: missing.length,
    unchanged: servers.length - missing.length,
    replaced: [],
  };
  if (preview) return { ...result, bulkId: null };
  // Sorted in code-point order, as serverTagsInput sorts a single server's tags.
  await sql.query(
    `WITH target AS (
       SELECT id, hostname, tags FROM servers WHERE org_id = $1 AND id = ANY($2::uuid[]) AND NOT ($3 = ANY(tags))
     ), changed AS (
       UPDATE servers s SET tags = ARRAY(SELECT t FROM unnest(target.tags || $3::text) AS t GROUP BY t ORDER BY t COLLATE "C")
       FROM target WHERE s.id = target.id AND s.org_id = $1
       RETURNING s.id, target.hostname, target.tags AS before, s.tags AS after
     )
     INSERT INTO audit_log (org_id, actor_id, action, target, details)
     SELECT $1, $4, 'server.tags_changed', id::text,
       jsonb_build_object('hostname', hostname, 'before', to_jsonb(before), 'after', to_jsonb(after), 'bulk', $5::jsonb)
     FROM changed`,
    [actor.orgId, ids, tag, actor.userId, JSON.stringify({ id: bulkId, action: "tag", servers: servers.length })],
  );
  return { ...result, bulkId };
}

export async function untagServers(
  sql: OrgSql,
  actor: Actor,
  servers: BulkServer[],
  tag: string,
  preview: boolean,
  bulkId: string,
): Promise<BulkResult> {
  const ids = servers.map((server) => server.id);
  const {
    rows: [{ n: carrying } = { n: 0 }],
  } = await sql.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM servers WHERE org_id = $1 AND id = ANY($2::uuid[]) AND $3 = ANY(tags)",
    [actor.orgId, ids, tag],
  );
  const result = {
    action: "untag" as const,
    preview,
    servers: servers.length,
    changed: carrying,
    unchanged: servers.length - carrying,
    replaced: [],
  };
  if (preview) return { ...result, bulkId: null };
  await sql.query(
    `WITH target AS (
       SELECT id, hostname, tags FROM servers WHERE org_id = $1 AND id = ANY($2::uuid[]) AND $3 = ANY(tags)
     ), changed AS (
       UPDATE servers s SET tags = array_remove(target.tags, $3::text)
       FROM target WHERE s.id = target.id AND s.org_id = $1
       RETURNING s.id, target.hostname, target.tags AS before, s.tags AS after
     )
     INSERT INTO audit_log (org_id, actor_id, action, target, details)
     SELECT $1, $4, 'server.tags_changed', id::text,
       jsonb_build_object('hostname', hostname, 'before', to_jsonb(before), 'after', to_jsonb(after), 'bulk', $5::jsonb)
     FROM changed`,
    [actor.orgId, ids, tag, actor.userId, JSON.stringify({ id: bulkId, action: "untag", servers: servers.length })],
  );
  return { ...result, bulkId };
}
