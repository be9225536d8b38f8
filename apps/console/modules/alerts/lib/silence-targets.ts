import { inOrg, type Db } from "@/lib/db";
import type { SilenceTargets } from "../types/alerts";

export async function listAlertTargets(db: Db, orgId: string): Promise<SilenceTargets> {
  return inOrg(db, orgId, async (tx) => ({
    rules: await tx.alertRule.findMany({ where: { orgId }, select: { id: true, name: true }, orderBy: { name: "asc" } }),
    servers: await tx.server.findMany({ where: { orgId }, select: { id: true, hostname: true }, orderBy: { hostname: "asc" } }),
  }));
}
