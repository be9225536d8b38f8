// Before/after verdicts around applied policy changes, on a server and on a policy version. The
// change moment is when the agent first reported the effective policy as applied
// (server_policy_status.applied_at). Only the latest apply of each server is kept, so a version is
// judged on the servers where it is the newest layer of the policy in force; elsewhere the page
// says why there is no verdict instead of guessing a moment.
import { compareWindows, matchWindows, verdictMetrics, type RatioUnit } from "@spindle/domain";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { readServerSql } from "@/modules/fleet/lib/get-server";
import type { ChangeMoment, PolicyVersionVerdicts, ServerVerdict } from "../types/verdict";
import { appliedChangesSql, historyStartSql, policyVersionSql, verdictUnitsSql, type AppliedChangeRow, type PolicyVersionRow, type VerdictUnitRow } from "./verdict-sql";

function isApplied(row: AppliedChangeRow): row is AppliedChangeRow & { applied_at: Date } {
  return row.status === "applied" && row.applied_at !== null && row.applied_hash !== null && row.applied_hash === row.effective_hash;
}

function causeOf(row: AppliedChangeRow): string {
  const newest = row.layers?.find((layer) => layer.versionId === row.newest_layer_version_id);
  if (newest) return `${newest.policyName} v${newest.version}`;
  return row.layers && row.layers.length > 0 ? "the policy in force" : "the built-in defaults (no policy assigned)";
}

/** The latest change a server's agent applied, whatever caused it. */
export function latestChange(row: AppliedChangeRow): ChangeMoment {
  if (!isApplied(row)) {
    return { status: "unknown", reason: row.status === null ? "no policy has been applied on this server yet" : `the server's policy is ${row.status}, not applied` };
  }
  return { status: "known", appliedAt: row.applied_at.toISOString(), cause: causeOf(row) };
}

/** The apply of one version on a server, when it is the change the server applied last. */
export function versionChange(row: AppliedChangeRow, version: { id: string; createdAt: Date; label: string }): ChangeMoment {
  if (!isApplied(row)) return { status: "unknown", reason: `${version.label} is not applied on this server yet (policy ${row.status ?? "pending"})` };
  if (row.newest_layer_version_id !== version.id || row.applied_at < version.createdAt) {
    return { status: "unknown", reason: `a newer change (${causeOf(row)}) was applied since; only the latest apply time of a server is kept` };
  }
  return { status: "known", appliedAt: row.applied_at.toISOString(), cause: version.label };
}

function unitsByMetric(rows: readonly VerdictUnitRow[]): Map<string, RatioUnit[]> {
  const units = new Map<string, RatioUnit[]>();
  for (const row of rows) {
    const list = units.get(row.metric) ?? [];
    list.push({ numerator: row.numerator, denominator: row.denominator });
    units.set(row.metric, list);
  }
  return units;
}

async function compareAround(sql: OrgSql, orgId: string, server: { id: string; hostname: string }, change: ChangeMoment, now: Date): Promise<ServerVerdict> {
  const base = { serverId: server.id, hostname: server.hostname, change };
  if (change.status === "unknown") return { ...base, windows: null, metrics: [] };
  const history = await sql.query<{ start: Date | null }>(historyStartSql, [orgId, server.id]);
  const windows = matchWindows(new Date(change.appliedAt), now, history.rows[0]?.start ?? null);
  if (windows.status === "not-enough-data") return { ...base, windows, metrics: [] };
  const [before, after] = await Promise.all(
    [windows.before, windows.after].map((window) => sql.query<VerdictUnitRow>(verdictUnitsSql, [orgId, server.id, window.from, window.to])),
  );
  const beforeUnits = unitsByMetric(before!.rows);
  const afterUnits = unitsByMetric(after!.rows);
  return {
    ...base,
    windows: {
      status: "matched",
      matching: windows.matching,
      before: { from: windows.before.from.toISOString(), to: windows.before.to.toISOString() },
      after: { from: windows.after.from.toISOString(), to: windows.after.to.toISOString() },
    },
    metrics: Object.values(verdictMetrics).map((metric) => compareWindows(metric, beforeUnits.get(metric.key) ?? [], afterUnits.get(metric.key) ?? [])),
  };
}

export async function queryServerVerdict(db: Db, orgId: string, serverId: string, now = new Date()): Promise<ServerVerdict> {
  return inOrgSql(db, orgId, async (sql) => {
    const server = await readServerSql(sql, orgId, serverId, now);
    const { rows } = await sql.query<AppliedChangeRow>(appliedChangesSql, [orgId, [server.id]]);
    return compareAround(sql, orgId, server, latestChange(rows[0]!), now);
  });
}

export async function queryPolicyVersionVerdicts(db: Db, orgId: string, policyId: string, version: number, now = new Date()): Promise<PolicyVersionVerdicts> {
  if (!isUuid(policyId)) throw notFound(`Version ${version} of this policy`);
  return inOrgSql(db, orgId, async (sql) => {
    const found = (await sql.query<PolicyVersionRow>(policyVersionSql, [orgId, policyId, version])).rows[0];
    if (!found) throw notFound(`Version ${version} of this policy`);
    const label = `${found.policy_name} v${version}`;
    const { rows } = await sql.query<AppliedChangeRow>(appliedChangesSql, [orgId, null]);
    const inForce = rows.filter((row) => row.layers?.some((layer) => layer.versionId === found.id));
    const servers = await Promise.all(
      inForce.map((row) => compareAround(sql, orgId, { id: row.server_id, hostname: row.hostname }, versionChange(row, { id: found.id, createdAt: found.created_at, label }), now)),
    );
    return { policyId, version, servers };
  });
}
