import type { Prisma } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import type { ServerSummary } from "../types/server";
import { serverSummarySelect, summariseServer } from "./summarise-server";

/**
 * One server of the organisation. A server of another organisation is "not found", exactly like
 * one that does not exist, so ids never leak across tenants.
 */
export async function getServer(db: Prisma, orgId: string, serverId: string, now = new Date()): Promise<ServerSummary> {
  const row = isUuid(serverId)
    ? await db.server.findFirst({ where: { id: serverId, orgId }, select: serverSummarySelect })
    : null;
  if (!row) throw notFound("This server");
  return summariseServer(row, now);
}
