// The staged rollouts' measured guards on an agent upgrade wave (docs/install.md, "Upgrades"):
// once a wave has installed and soaked, and before the next wave is offered, the p99 read and
// write latency of the wave's devices and the comparison of the wave's servers with the servers
// not yet upgraded (difference in differences, with its interval) are read over the soak against
// an equally long window before the offer. The readings and their judgement are the policy
// rollouts' own (../rollouts/guards.ts, @spindle/domain rollouts/*); this file only picks the
// servers and the windows, and keeps the newest reading of each wave in agent_upgrade_waves.
import {
  decideWave,
  describeGuardReading,
  minimumGuardWindowMinutes,
  type AgentUpgradePlan,
  type GuardReading,
  type WaveServer,
} from "@spindle/domain";
import type pg from "pg";
import type { Window } from "../rollouts/guard-sql.js";
import { comparativeReading, latencyReadings, parseReadings } from "../rollouts/guards.js";

export interface GuardSettings {
  /** Telemetry of a window's last seconds arrives this much later; the window is read after it. */
  settleSeconds: number;
}

export type GuardOutcome =
  /** fresh: judged now (audited as passed); otherwise passed or overridden before. */
  | { kind: "pass"; fresh: boolean; readings: GuardReading[]; reason: string }
  | { kind: "waiting"; until: Date }
  | { kind: "hold"; reason: string; changed: boolean }
  | { kind: "trip"; reason: string; guards: string[] };

export interface JudgedWave {
  rolloutId: string;
  wave: number;
  installedAt: Date;
  /** The wave's servers that run the new version (treated), and when the first was offered it. */
  upgraded: readonly WaveServer[];
  firstOfferedAt: Date;
}

interface StoredVerdict {
  verdict: "pass" | "hold" | "trip";
  reason: string;
  readings_at: Date;
  overridden_at: Date | null;
}

const maxWindowMs = 86_400_000;
const holdingRereadMs = 60_000;

/** The guard window: the soak, or the product's floor for a guard window when the soak is shorter. */
export function guardWindowMinutes(plan: Pick<AgentUpgradePlan, "soakMinutes">): number {
  return Math.max(plan.soakMinutes, minimumGuardWindowMinutes);
}

/**
 * Judges the wave: "pass" (or overridden by a person) lets the next wave go out; "waiting" until
 * the guard window has ended and settled; "hold" while a guard lacks data (re-read at most once a
 * minute over a window grown to now, at most a day); "trip" on a regression. Writes the readings.
 */
export async function judgeUpgradeWave(
  client: pg.ClientBase,
  orgId: string,
  plan: AgentUpgradePlan,
  wave: JudgedWave,
  now: Date,
  settings: GuardSettings,
): Promise<GuardOutcome> {
  const stored = (
    await client.query<StoredVerdict>(
      "SELECT verdict, reason, readings_at, overridden_at FROM agent_upgrade_waves WHERE org_id = $1 AND rollout_id = $2 AND wave = $3",
      [orgId, wave.rolloutId, wave.wave],
    )
  ).rows[0];
  if (stored && (stored.verdict === "pass" || stored.overridden_at !== null))
    return { kind: "pass", fresh: false, readings: [], reason: "" };
  const installedMs = wave.installedAt.getTime();
  const guardEndMs = installedMs + guardWindowMinutes(plan) * 60_000;
  const readableAt = guardEndMs + settings.settleSeconds * 1000;
  if (now.getTime() < readableAt) return { kind: "waiting", until: new Date(readableAt) };
  if (stored?.verdict === "hold" && now.getTime() - stored.readings_at.getTime() < holdingRereadMs) {
    return { kind: "hold", reason: stored.reason, changed: false };
  }

  // A holding wave re-reads a window grown to now: the data it lacked may have arrived.
  const endMs =
    stored?.verdict === "hold"
      ? Math.min(Math.max(guardEndMs, now.getTime() - settings.settleSeconds * 1000), installedMs + maxWindowMs)
      : guardEndMs;
  const after: Window = { start: wave.installedAt, end: new Date(endMs) };
  const before: Window = { start: new Date(wave.firstOfferedAt.getTime() - (endMs - installedMs)), end: wave.firstOfferedAt };
  const readings = wave.upgraded.length === 0 ? [] : await readGuards(client, orgId, plan, wave, after, before);
  const decision = wave.upgraded.length === 0 ? ({ outcome: "pass" } as const) : decideWave(readings);
  const verdict = decision.outcome;
  const reason =
    wave.upgraded.length === 0
      ? "No server of this wave was upgraded, so nothing changed to judge."
      : verdictReason(verdict, readings, Math.round((endMs - installedMs) / 60_000));
  await client.query(
    `INSERT INTO agent_upgrade_waves (org_id, rollout_id, wave, verdict, reason, readings, readings_at, after_start, after_end, before_start, before_end)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (rollout_id, wave) DO UPDATE SET verdict = excluded.verdict, reason = excluded.reason, readings = excluded.readings,
       readings_at = excluded.readings_at, after_start = excluded.after_start, after_end = excluded.after_end,
       before_start = excluded.before_start, before_end = excluded.before_end`,
    [orgId, wave.rolloutId, wave.wave, verdict, reason, JSON.stringify(readings), now, after.start, after.end, before.start, before.end],
  );
  if (decision.outcome === "trip") return { kind: "trip", reason, guards: decision.guards };
  if (decision.outcome === "hold") return { kind: "hold", reason, changed: stored?.verdict !== "hold" };
  return { kind: "pass", fresh: true, readings, reason };
}

/**
 * Why the wave stops, naming each deciding guard with its reading (a comparison's interval
 * included). A wave whose comparison measured nothing holds too: it never passes on no evidence.
 */
export function verdictReason(verdict: "pass" | "hold" | "trip", readings: readonly GuardReading[], minutes: number): string {
  if (verdict === "pass") return "";
  const deciding = readings.filter((r) => r.status === (verdict === "trip" ? "trip" : "not-enough-data"));
  const lead =
    verdict === "trip"
      ? `A guard tripped after ${minutes} min on the new version:`
      : `Holding: not enough data to judge the wave after ${minutes} min on the new version:`;
  const comparative = readings.find((r) => r.guard === "comparative");
  const body =
    deciding.length > 0
      ? deciding.map(describeGuardReading).join(" ")
      : `${comparative ? describeGuardReading(comparative) : "no comparison was read."} The wave is not judged without a comparison.`;
  return `${lead} ${body}`.slice(0, 4000);
}

async function readGuards(
  client: pg.ClientBase,
  orgId: string,
  plan: AgentUpgradePlan,
  wave: JudgedWave,
  after: Window,
  before: Window,
): Promise<GuardReading[]> {
  // Every server this upgrade offered the version to has changed (or may have): none is a control.
  const offered = await client.query<{ server_id: string }>(
    "SELECT DISTINCT server_id::text FROM agent_upgrades WHERE org_id = $1 AND rollout_id = $2 AND offered_at IS NOT NULL",
    [orgId, wave.rolloutId],
  );
  const changedByRollout = new Set(offered.rows.map((row) => row.server_id));
  return parseReadings([
    ...(await latencyReadings(client, orgId, plan.guards, wave.upgraded, after, before)),
    await comparativeReading(
      client,
      orgId,
      plan.guards,
      wave.upgraded.map((s) => s.serverId),
      changedByRollout,
      after,
      before,
    ),
  ]);
}
