import type { AlertSilence } from "@spindle/domain";
import type { OrgTransaction } from "@/lib/db";
import { scopeFromColumns } from "./describe-rule";

/** Silences in force at `at` (not cancelled by then), in the domain's shape for findSilence. */
export async function loadSilencesInForce(tx: OrgTransaction, orgId: string, at: Date): Promise<AlertSilence[]> {
  const rows = await tx.alertSilence.findMany({
    where: { orgId, startsAt: { lte: at }, endsAt: { gt: at }, OR: [{ cancelledAt: null }, { cancelledAt: { gt: at } }] },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map((row) => ({
    id: row.id, ruleId: row.ruleId, scope: scopeFromColumns(row), startsAt: row.startsAt, endsAt: row.endsAt, comment: row.comment, cancelledAt: row.cancelledAt,
  }));
}
