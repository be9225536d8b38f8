import { inOrg, type Db } from "@/lib/db";
import type { ServerSummary } from "../types/server";
import { serverSummarySelect, summariseServer } from "./summarise-server";

/** Every server of the organisation, by hostname. */
export async function listServers(db: Db, orgId: string, now = new Date()): Promise<ServerSummary[]> {
  const rows = await inOrg(db, orgId, (tx) =>
    tx.server.findMany({ where: { orgId }, orderBy: [{ hostname: "asc" }, { createdAt: "asc" }], select: serverSummarySelect }));
  return rows.map((row) => summariseServer(row, now));
}
