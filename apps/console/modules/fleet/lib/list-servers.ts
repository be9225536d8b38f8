import { inOrgSql, type Db } from "@/lib/db";
import type { ServerSummary } from "../types/server";
import { listServersSql } from "./get-server";

/**
 * Every server of the organisation, by hostname. In SQL on the pg pool rather than through
 * Prisma: the fleet page polls this every 10 s, and on 1,000 servers Prisma's row mapping cost
 * four times the CPU of the same rows from pg (docs/benchmarks.md, "Console at fleet scale").
 */
export async function listServers(db: Db, orgId: string, now = new Date()): Promise<ServerSummary[]> {
  return inOrgSql(db, orgId, (sql) => listServersSql(sql, orgId, now));
}
