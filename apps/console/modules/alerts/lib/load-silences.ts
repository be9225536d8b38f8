import type { AlertSilence } from "@spindle/domain";
import type { OrgSql } from "@/lib/db";
import { scopeFromColumns } from "./describe-rule";

type SilenceRow = {
  id: string;
  ruleId: string | null;
  scope: string;
  tag: string | null;
  serverId: string | null;
  device: string | null;
  startsAt: Date;
  endsAt: Date;
  comment: string;
  cancelledAt: Date | null;
};

/** Silences in force at `at` (not cancelled by then), oldest first, in the domain's shape for findSilence. */
export async function loadSilencesInForce(sql: OrgSql, orgId: string, at: Date): Promise<AlertSilence[]> {
  const { rows } = await sql.query<SilenceRow>(
    `SELECT s.id::text AS id, s.rule_id::text AS "ruleId", s.scope, s.tag, s.server_id::text AS "serverId", s.device,
            s.starts_at AS "startsAt", s.ends_at AS "endsAt", s.comment, s.cancelled_at AS "cancelledAt"
     FROM alert_silences s
     WHERE s.org_id = $1 AND s.starts_at <= $2 AND s.ends_at > $2 AND (s.cancelled_at IS NULL OR s.cancelled_at > $2)
     ORDER BY s.created_at, s.id`,
    [orgId, at],
  );
  return rows.map((row) => ({
    id: row.id,
    ruleId: row.ruleId,
    scope: scopeFromColumns(row),
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    comment: row.comment,
    cancelledAt: row.cancelledAt,
  }));
}
