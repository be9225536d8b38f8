import type { OrgSql } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { MAX_BULK_SERVERS, type BulkTarget } from "../types/bulk";
import { fleetIdsSql } from "./fleet-sql";

export interface BulkServer {
  id: string;
  hostname: string;
}

/**
 * The servers a bulk action acts on. With `lock`, their rows stay locked for the rest of the
 * transaction (FOR UPDATE), so a concurrent tag edit waits instead of being overwritten; an
 * action on agents (revoke) does not lock servers, since the gateway locks an agent before its
 * server and the other order could deadlock with it. By id: every id must be a server
 * of the organisation, or nothing happens (which ids are unknown is not said, so ids of another
 * organisation leak nothing). By filter: the matching servers now, which must still be the
 * number the user confirmed.
 */
export async function resolveBulkTargets(sql: OrgSql, orgId: string, target: BulkTarget, now: Date, lock: boolean): Promise<BulkServer[]> {
  let ids: string[];
  if ("serverIds" in target) {
    ids = [...new Set(target.serverIds)];
    if (ids.some((id) => !isUuid(id))) throw unknownServers(ids.filter((id) => !isUuid(id)).length);
  } else {
    const matching = fleetIdsSql(target.filter, MAX_BULK_SERVERS + 1);
    ids = (await sql.query<{ id: string }>(matching.text, [orgId, now, ...matching.params])).rows.map((row) => row.id);
    if (ids.length > MAX_BULK_SERVERS) {
      throw new ProblemError(
        413,
        "Too many servers",
        `More than ${MAX_BULK_SERVERS.toLocaleString("en")} servers match: narrow the filters and act on each slice.`,
      );
    }
    if (ids.length !== target.expectedCount) {
      throw new ProblemError(
        409,
        "The selection changed",
        `${ids.length === 1 ? "1 server matches" : `${ids.length} servers match`} the filters now, not the ${target.expectedCount} you confirmed. Review the list and confirm again.`,
        { matching: ids.length, expectedCount: target.expectedCount },
      );
    }
    if (ids.length === 0) return [];
  }
  const { rows } = await sql.query<BulkServer>(
    `SELECT id::text AS id, hostname FROM servers WHERE org_id = $1 AND id = ANY($2::uuid[]) ORDER BY id${lock ? " FOR UPDATE" : ""}`,
    [orgId, ids],
  );
  if (rows.length !== ids.length) throw unknownServers(ids.length - rows.length);
  return rows;
}

function unknownServers(count: number): ProblemError {
  return new ProblemError(
    404,
    "Not found",
    `${count === 1 ? "1 of the servers does" : `${count} of the servers do`} not exist in your organisation (removed meanwhile?): nothing was changed. Reload the list and try again.`,
  );
}
