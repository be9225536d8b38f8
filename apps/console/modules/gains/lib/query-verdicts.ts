// Before/after verdicts around applied policy changes, on a server and on a policy version. The
// change moment is when the agent first reported the effective policy as applied
// (server_policy_status.applied_at). Only the latest apply of each server is kept, so a version is
// judged on the servers where it is the newest layer of the policy in force; elsewhere the page
// says why there is no verdict instead of guessing a moment. The verdict is read at the fixed
// horizon's checkpoints (@spindle/domain lookAt): provisional before 24 hours, final at 24 hours.
import { judgeChange, lookAt, needsMinutes, previousDaysSuffice, type MinuteEvidence, type VerdictMetricKey } from "@spindle/domain";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { notFound } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { readServerSql } from "@/modules/fleet/lib/get-server";
import type { ChangeMoment, PolicyVersionVerdicts, ServerVerdict } from "../types/verdict";
import { causedReadsIn } from "./caused-in-window";
import { buildEvidence, minuteUnits, verdictWindows, WindowSumsTable, type Window } from "./verdict-evidence";
import {
  appliedChangesSql,
  controlCandidatesSql,
  historyStartSql,
  policyVersionSql,
  windowMinutesSql,
  windowSumsSql,
  type AppliedChangeRow,
  type ControlCandidateRow,
  type MinuteRow,
  type PolicyVersionRow,
  type WindowSumsRow,
} from "./verdict-sql";

/**
 * Servers not yet changed looked at, at most. Twenty leave the control's own error a twentieth of
 * the changed server's (√(1 + 1/20)); each costs two windows of minutes (bench/verdict-query.bench.ts).
 */
export const maximumControlServers = 20;

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
    return {
      status: "unknown",
      reason: row.status === null ? "no policy has been applied on this server yet" : `the server's policy is ${row.status}, not applied`,
    };
  }
  return { status: "known", appliedAt: row.applied_at.toISOString(), cause: causeOf(row) };
}

/** The apply of one version on a server, when it is the change the server applied last. */
export function versionChange(row: AppliedChangeRow, version: { id: string; createdAt: Date; label: string }): ChangeMoment {
  if (!isApplied(row))
    return { status: "unknown", reason: `${version.label} is not applied on this server yet (policy ${row.status ?? "pending"})` };
  if (row.newest_layer_version_id !== version.id || row.applied_at < version.createdAt) {
    return {
      status: "unknown",
      reason: `a newer change (${causeOf(row)}) was applied since; only the latest apply time of a server is kept`,
    };
  }
  return { status: "known", appliedAt: row.applied_at.toISOString(), cause: version.label };
}

const starts = (windows: readonly Window[]) => windows.map((window) => window.from);
const ends = (windows: readonly Window[]) => windows.map((window) => window.to);
const iso = (window: Window) => ({ from: window.from.toISOString(), to: window.to.toISOString() });

async function readMinutes(
  sql: OrgSql,
  orgId: string,
  serverId: string,
  before: Window,
  after: Window,
  table: WindowSumsTable,
  keys: VerdictMetricKey[],
) {
  const { rows } = await sql.query<MinuteRow>(windowMinutesSql, [orgId, [serverId], starts([before, after]), ends([before, after])]);
  const minutes = new Map<VerdictMetricKey, MinuteEvidence>();
  for (const key of keys) {
    const cap = table.cap(serverId, key);
    const of = (index: number) => rows.filter((row) => row.metric === key && row.window_index === index);
    minutes.set(key, {
      before: minuteUnits(of(1), before, cap),
      after: minuteUnits(of(2), after, cap),
      beforeWindow: "the same hours of the previous day",
    });
  }
  return minutes;
}

async function compareAround(
  sql: OrgSql,
  orgId: string,
  server: { id: string; hostname: string },
  change: ChangeMoment,
  now: Date,
): Promise<ServerVerdict> {
  const base = { serverId: server.id, hostname: server.hostname, change, readCacheCaused: null };
  if (change.status === "unknown") return { ...base, look: null, metrics: [] };
  const changeAt = new Date(change.appliedAt);
  const look = lookAt(changeAt, now);
  if (look.status === "too-early") {
    return {
      ...base,
      look: { status: "too-early", reason: look.reason, firstAt: look.firstAt.toISOString(), finalAt: look.finalAt.toISOString() },
      metrics: [],
    };
  }
  const windows = verdictWindows(changeAt, look.afterMinutes);
  const history = (await sql.query<{ start: Date | null }>(historyStartSql, [orgId, server.id])).rows[0]?.start ?? null;
  // Yesterday's same hours when the server has them (its own daily cycle cancels), else the window right before.
  const yesterday = history !== null && history.getTime() <= windows.previousDays[0]!.from.getTime();
  const before = yesterday ? windows.previousDays[0]! : windows.adjacent;
  const beforeDescription = yesterday ? "the same hours of the previous day" : "the window right before the change";
  const treatedWindows = [windows.after, ...windows.previousDays, ...(yesterday ? [] : [windows.adjacent])];
  const treated = new WindowSumsTable(
    (await sql.query<WindowSumsRow>(windowSumsSql, [orgId, [server.id], starts(treatedWindows), ends(treatedWindows)])).rows,
  );
  // Servers not yet changed are read only for a metric the previous days cannot judge (a new server).
  const ownHistory = buildEvidence({ serverId: server.id, treated, beforeIndex: 2, beforeDescription, controls: null, minutes: null });
  const candidates = ownHistory.every((evidence) => previousDaysSuffice(evidence))
    ? []
    : (await sql.query<ControlCandidateRow>(controlCandidatesSql, [orgId, server.id, before.from, maximumControlServers])).rows;
  const controls =
    candidates.length === 0
      ? null
      : {
          ids: candidates.map((row) => row.server_id),
          table: new WindowSumsTable(
            (
              await sql.query<WindowSumsRow>(windowSumsSql, [
                orgId,
                candidates.map((row) => row.server_id),
                starts([before, windows.after]),
                ends([before, windows.after]),
              ])
            ).rows,
          ),
        };
  const input = { serverId: server.id, treated, beforeIndex: yesterday ? 2 : 9, beforeDescription, controls, minutes: null };
  const wanted = buildEvidence(input)
    .filter((evidence) => needsMinutes(evidence, look))
    .map((evidence) => evidence.metric.key);
  const minutes =
    wanted.length > 0 && yesterday
      ? await readMinutes(sql, orgId, server.id, windows.previousDays[0]!, windows.after, treated, wanted)
      : null;
  return {
    ...base,
    look: {
      status: "look",
      stage: look.stage,
      afterMinutes: look.afterMinutes,
      horizonMinutes: look.horizonMinutes,
      alpha: look.alpha,
      finalAt: look.finalAt.toISOString(),
      after: iso(windows.after),
      before: { ...iso(before), description: beforeDescription },
      controlServers: candidates.length,
    },
    metrics: judgeChange(buildEvidence({ ...input, minutes }), look),
    readCacheCaused: await causedReadsIn(sql, orgId, server.id, windows.after),
  };
}

/** The verdict of a server's latest change, inside an organisation's transaction. */
export async function readServerVerdict(sql: OrgSql, orgId: string, serverId: string, now = new Date()): Promise<ServerVerdict> {
  const server = await readServerSql(sql, orgId, serverId, now);
  const { rows } = await sql.query<AppliedChangeRow>(appliedChangesSql, [orgId, [server.id]]);
  return compareAround(sql, orgId, server, latestChange(rows[0]!), now);
}

export async function queryServerVerdict(db: Db, orgId: string, serverId: string, now = new Date()): Promise<ServerVerdict> {
  return inOrgSql(db, orgId, (sql) => readServerVerdict(sql, orgId, serverId, now));
}

export async function queryPolicyVersionVerdicts(
  db: Db,
  orgId: string,
  policyId: string,
  version: number,
  now = new Date(),
): Promise<PolicyVersionVerdicts> {
  if (!isUuid(policyId)) throw notFound(`Version ${version} of this policy`);
  return inOrgSql(db, orgId, async (sql) => {
    const found = (await sql.query<PolicyVersionRow>(policyVersionSql, [orgId, policyId, version])).rows[0];
    if (!found) throw notFound(`Version ${version} of this policy`);
    const label = `${found.policy_name} v${version}`;
    const { rows } = await sql.query<AppliedChangeRow>(appliedChangesSql, [orgId, null]);
    const inForce = rows.filter((row) => row.layers?.some((layer) => layer.versionId === found.id));
    const servers = await Promise.all(
      inForce.map((row) =>
        compareAround(
          sql,
          orgId,
          { id: row.server_id, hostname: row.hostname },
          versionChange(row, { id: found.id, createdAt: found.created_at, label }),
          now,
        ),
      ),
    );
    return { policyId, version, servers };
  });
}
