// One step of one agent upgrade rollout (docs/install.md, "Upgrades"): the wave offered last is
// watched until every server in it has installed the version, then soaks (each must stay online on
// the new version for plan.soakMinutes), then must pass the staged rollouts' measured guards
// (guards.ts: p99 latency, and the servers not yet upgraded as a control) before the next wave is
// offered; a regression pauses the rollout, a guard short of data holds the wave. After the last
// wave's soak the rollout completes. A server that failed or rolled back, one that has not reported on its offer
// within plan.answerTimeoutMinutes, or one that went offline or back to another version while
// soaking pauses the rollout with the reason: the upgrade stops at the wave that found the
// problem. Each decision is written to the audit log in the same transaction.
import { agentUpgradePlanSchema, type AgentUpgradePlan } from "@spindle/domain";
import type pg from "pg";
import { judgeUpgradeWave, type GuardSettings } from "./guards.js";

export type StepOutcome =
  | { kind: "watching" }
  | { kind: "soaking"; until: Date }
  | { kind: "holding"; reason: string }
  | { kind: "wave-installed"; wave: number }
  | { kind: "wave-offered"; wave: number; servers: number }
  | { kind: "completed" }
  | { kind: "paused"; reason: string }
  | { kind: "not-running" };

interface RolloutRow {
  id: string;
  target_version: string;
  plan: unknown;
  current_wave: number;
  wave_count: number;
  wave_installed_at: Date | null;
}

interface AttemptRow {
  server_id: string;
  acknowledged: boolean;
  hostname: string;
  state: string;
  message: string;
  offered_at: Date | null;
  reported_at: Date | null;
  last_seen_at: Date | null;
  agent_version: string;
}

/** A server that has not been seen for this long while soaking counts as offline. */
export const offlineAfterSeconds = 90;

export async function stepRollout(
  tx: pg.ClientBase,
  orgId: string,
  rolloutId: string,
  now: Date,
  settings: GuardSettings,
): Promise<StepOutcome> {
  const locked = await tx.query(
    `SELECT id, target_version, plan, current_wave, wave_count, wave_installed_at FROM agent_upgrade_rollouts
     WHERE org_id = $1 AND id = $2 AND status = 'running' FOR UPDATE SKIP LOCKED`,
    [orgId, rolloutId],
  );
  const rollout = locked.rows[0] as RolloutRow | undefined;
  if (!rollout) return { kind: "not-running" }; // another worker has it, or it is paused or over
  const plan = agentUpgradePlanSchema.parse(rollout.plan);
  const attempts = (
    await tx.query(
      `SELECT u.server_id, u.acknowledged_at IS NOT NULL AS acknowledged, s.hostname, u.state, u.message, u.offered_at, u.reported_at, s.last_seen_at, s.agent_version
     FROM agent_upgrades u JOIN servers s ON s.org_id = u.org_id AND s.id = u.server_id
     WHERE u.org_id = $1 AND u.rollout_id = $2 AND u.wave = $3 ORDER BY s.hostname`,
      [orgId, rolloutId, rollout.current_wave],
    )
  ).rows as AttemptRow[];

  const problem = findProblem(attempts, rollout, plan, now);
  if (problem) return pause(tx, orgId, rollout, problem, now);

  const live = attempts.filter((a) => ["waiting", "offered", "downloading", "installing"].includes(a.state));
  if (live.length > 0) return { kind: "watching" };
  if (rollout.wave_installed_at === null) {
    await tx.query("UPDATE agent_upgrade_rollouts SET wave_installed_at = $3, updated_at = $3 WHERE org_id = $1 AND id = $2", [
      orgId,
      rolloutId,
      now,
    ]);
    await audit(tx, orgId, rolloutId, "agent_upgrade.wave_installed", {
      wave: rollout.current_wave,
      version: rollout.target_version,
      installed: attempts.filter((a) => a.state === "installed").length,
      soakMinutes: plan.soakMinutes,
    });
    return { kind: "wave-installed", wave: rollout.current_wave };
  }
  const soakEnds = new Date(rollout.wave_installed_at.getTime() + plan.soakMinutes * 60_000);
  if (now < soakEnds) return { kind: "soaking", until: soakEnds };

  const next = rollout.current_wave + 1;
  if (next >= rollout.wave_count) {
    await tx.query(
      "UPDATE agent_upgrade_rollouts SET status = 'completed', status_reason = '', finished_at = $3, updated_at = $3 WHERE org_id = $1 AND id = $2",
      [orgId, rolloutId, now],
    );
    await audit(tx, orgId, rolloutId, "agent_upgrade.completed", { version: rollout.target_version, waves: rollout.wave_count });
    return { kind: "completed" };
  }

  const upgraded = attempts.filter((a) => a.state === "installed");
  const offers = attempts.flatMap((a) => (a.offered_at ? [a.offered_at.getTime()] : []));
  const judged = await judgeUpgradeWave(
    tx,
    orgId,
    plan,
    {
      rolloutId,
      wave: rollout.current_wave,
      installedAt: rollout.wave_installed_at,
      upgraded: upgraded.map((a) => ({ serverId: a.server_id, hostname: a.hostname })),
      firstOfferedAt: new Date(offers.length > 0 ? Math.min(...offers) : rollout.wave_installed_at.getTime()),
    },
    now,
    settings,
  );
  if (judged.kind === "waiting") return { kind: "soaking", until: judged.until };
  if (judged.kind === "trip") return pause(tx, orgId, rollout, judged.reason, now, { guards: judged.guards });
  if (judged.kind === "hold") {
    if (judged.changed) {
      await audit(tx, orgId, rolloutId, "agent_upgrade.wave_held", {
        wave: rollout.current_wave,
        version: rollout.target_version,
        reason: judged.reason,
      });
    }
    return { kind: "holding", reason: judged.reason };
  }
  if (judged.fresh) {
    await audit(tx, orgId, rolloutId, "agent_upgrade.wave_passed", {
      wave: rollout.current_wave,
      version: rollout.target_version,
      ...(judged.reason ? { note: judged.reason } : {}),
      guards: judged.readings.map((r) => ({ guard: r.guard, status: r.status, summary: r.summary })),
    });
  }
  return offerWave(tx, orgId, rollout, next, now);
}

/** Offers the next wave: its waiting servers become offered, except those already on the version. */
async function offerWave(tx: pg.ClientBase, orgId: string, rollout: RolloutRow, wave: number, now: Date): Promise<StepOutcome> {
  await tx.query(
    `UPDATE agent_upgrades u SET state = 'skipped', message = 'already runs ' || u.target_version, finished_at = $4
     FROM servers s WHERE s.org_id = u.org_id AND s.id = u.server_id AND s.agent_version = u.target_version
       AND u.org_id = $1 AND u.rollout_id = $2 AND u.wave = $3 AND u.state = 'waiting'`,
    [orgId, rollout.id, wave, now],
  );
  // A server with another live attempt (a pin made meanwhile) keeps that one.
  await tx.query(
    `UPDATE agent_upgrades u SET state = 'skipped', message = 'another upgrade of this server was in progress', finished_at = $4
     WHERE u.org_id = $1 AND u.rollout_id = $2 AND u.wave = $3 AND u.state = 'waiting'
       AND EXISTS (SELECT 1 FROM agent_upgrades l WHERE l.org_id = u.org_id AND l.server_id = u.server_id AND l.state IN ('offered', 'downloading', 'installing'))`,
    [orgId, rollout.id, wave, now],
  );
  const offered = await tx.query(
    `UPDATE agent_upgrades SET state = 'offered', offered_at = $4
     WHERE org_id = $1 AND rollout_id = $2 AND wave = $3 AND state = 'waiting' RETURNING server_id`,
    [orgId, rollout.id, wave, now],
  );
  await tx.query(
    "UPDATE agent_upgrade_rollouts SET current_wave = $3, wave_installed_at = NULL, updated_at = $4 WHERE org_id = $1 AND id = $2",
    [orgId, rollout.id, wave, now],
  );
  await audit(tx, orgId, rollout.id, "agent_upgrade.wave_offered", { wave, version: rollout.target_version, servers: offered.rows.length });
  return { kind: "wave-offered", wave, servers: offered.rows.length };
}

/** What stops the rollout in the current wave, worded for the console; null when nothing does. */
export function findProblem(
  attempts: readonly AttemptRow[],
  rollout: Pick<RolloutRow, "target_version" | "current_wave" | "wave_installed_at">,
  plan: AgentUpgradePlan,
  now: Date,
): string | null {
  for (const a of attempts) {
    if (a.acknowledged) continue; // someone resumed the rollout past it
    if (a.state === "rolled_back") return `${a.hostname} rolled back from ${rollout.target_version}: ${a.message}`;
    if (a.state === "failed") return `${a.hostname} could not upgrade to ${rollout.target_version}: ${a.message}`;
  }
  const answerBy = now.getTime() - plan.answerTimeoutMinutes * 60_000;
  for (const a of attempts) {
    if (!["offered", "downloading", "installing"].includes(a.state)) continue;
    const lastNews = a.reported_at ?? a.offered_at;
    if (lastNews && lastNews.getTime() < answerBy) {
      return `${a.hostname} has not reported on its upgrade to ${rollout.target_version} for ${plan.answerTimeoutMinutes} minutes (is it offline?)`;
    }
  }
  if (rollout.wave_installed_at !== null) {
    const offlineBefore = now.getTime() - offlineAfterSeconds * 1000;
    for (const a of attempts) {
      if (a.state !== "installed") continue;
      if (a.last_seen_at === null || a.last_seen_at.getTime() < offlineBefore) {
        return `${a.hostname} went offline after upgrading to ${rollout.target_version}`;
      }
      if (a.agent_version !== rollout.target_version) {
        return `${a.hostname} runs ${a.agent_version || "an unknown version"} again after upgrading to ${rollout.target_version}`;
      }
    }
  }
  return null;
}

async function pause(
  tx: pg.ClientBase,
  orgId: string,
  rollout: RolloutRow,
  reason: string,
  now: Date,
  extra: Record<string, unknown> = {},
): Promise<StepOutcome> {
  await tx.query("UPDATE agent_upgrade_rollouts SET status = 'paused', status_reason = $3, updated_at = $4 WHERE org_id = $1 AND id = $2", [
    orgId,
    rollout.id,
    reason,
    now,
  ]);
  await audit(tx, orgId, rollout.id, "agent_upgrade.paused", {
    wave: rollout.current_wave,
    version: rollout.target_version,
    reason,
    ...extra,
  });
  return { kind: "paused", reason };
}

/** The worker's decisions are audited like a person's actions, with no actor. */
async function audit(tx: pg.ClientBase, orgId: string, rolloutId: string, action: string, details: Record<string, unknown>): Promise<void> {
  await tx.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, NULL, $2, $3, $4)", [
    orgId,
    action,
    rolloutId,
    JSON.stringify(details),
  ]);
}
