// One step of one rollout, in one transaction with the rollout row locked (FOR UPDATE SKIP
// LOCKED: a second worker skips a rollout being stepped). Confirmations first (APPLIED, FAILED,
// a rollback confirmed), then the current wave moves on as far as it can now:
//   pending → applying (released) → watching (all APPLIED; the guard window starts)
//   → passed (guards pass at the window's end; the next wave is released at once)
//   | holding (not enough data, or confirmations overdue; re-read every step, or overridden)
//   | rolled back (a guard tripped: every released server goes back and the rollout pauses).
// docs/policy.md, "Rollouts".
import { decideWave, type GuardReadingInput } from "@spindle/domain";
import type pg from "pg";
import { backoffReading, continuousReadings, parseReadings, windowEndReadings } from "./guards.js";
import type { Window } from "./guard-sql.js";
import { recordEvent } from "./record.js";
import { confirmed, loadServers, loadWaves, lockRollout, refused, type RolloutRow, type ServerRow, type WaveRow } from "./rows.js";
import { completeRollout, materialise, releaseWave, rollBack } from "./steps.js";

export interface StepSettings {
  /** Telemetry of a window's last seconds arrives this much later; the window is read after it. */
  settleSeconds: number;
}

const maxWindowMs = 86_400_000;
const holdingRereadMs = 60_000;

/** What the step did, for logs and tests ("locked" when another worker holds the rollout). */
export type StepAction = string;

export async function stepRollout(
  client: pg.ClientBase,
  orgId: string,
  rolloutId: string,
  now: Date,
  settings: StepSettings,
): Promise<StepAction[]> {
  const rollout = await lockRollout(client, orgId, rolloutId);
  if (!rollout) return ["locked"];
  const actions: StepAction[] = [];
  await recordConfirmations(client, rollout, await loadServers(client, orgId, rollout.id), now, actions);
  if (rollout.status !== "running") return actions;

  // A released wave can pass and release the next one in the same step; bounded for safety.
  for (let i = 0; i < 4; i++) {
    const waves = await loadWaves(client, rollout.id);
    const servers = await loadServers(client, orgId, rollout.id);
    const wave = waves.find((w) => w.state !== "passed");
    if (!wave) {
      await completeRollout(client, rollout, waves, servers, now);
      actions.push("completed");
      return actions;
    }
    const moved = await stepWave(client, rollout, wave, servers, now, settings, actions);
    if (!moved) return actions;
  }
  return actions;
}

/** APPLIED and FAILED of released servers, and rollbacks their agents confirmed. */
async function recordConfirmations(
  client: pg.ClientBase,
  rollout: RolloutRow,
  servers: readonly ServerRow[],
  now: Date,
  actions: StepAction[],
): Promise<void> {
  const untargeted = servers.filter((s) => (s.state === "pushed" || s.state === "rolled_back") && s.targetHash === null);
  if (untargeted.length > 0) {
    // A person rolled back (or the step that released them failed half-way): materialise first.
    await materialise(
      client,
      rollout,
      untargeted.map((s) => s.serverId),
    );
    actions.push(`materialised ${untargeted.length}`);
    return; // the targets are new; confirmations are read at the next step
  }
  const applied = servers.filter((s) => s.state === "pushed" && confirmed(s, s.targetHash));
  const failed = servers.filter((s) => s.state === "pushed" && refused(s, s.targetHash));
  const rolledBack = servers.filter((s) => s.state === "rolled_back" && s.rollbackConfirmedAt === null && confirmed(s, s.targetHash));
  for (const s of applied) {
    await client.query("UPDATE rollout_servers SET state = 'applied', applied_at = $3 WHERE rollout_id = $1 AND server_id = $2", [
      rollout.id,
      s.serverId,
      s.reported?.appliedAt && s.releasedAt && s.reported.appliedAt >= s.releasedAt ? s.reported.appliedAt : now,
    ]);
  }
  for (const s of failed) {
    await client.query("UPDATE rollout_servers SET state = 'failed', failed_message = $3 WHERE rollout_id = $1 AND server_id = $2", [
      rollout.id,
      s.serverId,
      s.reported?.message ?? "",
    ]);
  }
  if (rolledBack.length > 0) {
    await client.query("UPDATE rollout_servers SET rollback_confirmed_at = $3 WHERE rollout_id = $1 AND server_id = ANY($2::uuid[])", [
      rollout.id,
      rolledBack.map((s) => s.serverId),
      now,
    ]);
  }
  if (applied.length + failed.length + rolledBack.length > 0)
    actions.push(`confirmed ${applied.length} applied, ${failed.length} failed, ${rolledBack.length} rolled back`);
}

async function saveReadings(
  client: pg.ClientBase,
  rollout: RolloutRow,
  wave: WaveRow,
  readings: readonly GuardReadingInput[],
  now: Date,
  evaluationMs: number | null = null,
) {
  await client.query(
    "UPDATE rollout_waves SET readings = $3, readings_at = $4, evaluation_ms = coalesce($5, evaluation_ms) WHERE rollout_id = $1 AND wave = $2",
    [rollout.id, wave.wave, JSON.stringify(parseReadings(readings)), now, evaluationMs],
  );
}

/** The window before the wave went out, as long as the after window. */
function beforeWindow(wave: WaveRow, afterMs: number): Window {
  const end = wave.releasedAt!;
  return { start: new Date(end.getTime() - afterMs), end };
}

/** Moves the current wave; returns true when it passed (the caller looks at the next one). */
async function stepWave(
  client: pg.ClientBase,
  rollout: RolloutRow,
  wave: WaveRow,
  servers: readonly ServerRow[],
  now: Date,
  settings: StepSettings,
  actions: StepAction[],
): Promise<boolean> {
  const plan = rollout.plan;
  const waveServers = servers.filter((s) => s.wave === wave.wave);
  if (wave.state === "rolled_back") return false; // paused by the rollback; a resume makes it pending again
  if (wave.state === "pending") {
    await releaseWave(client, rollout, wave, servers, now);
    actions.push(`released wave ${wave.wave}`);
    return false;
  }
  if (waveServers.some((s) => s.targetHash === null && s.state === "pushed")) return false; // materialised at the next step

  const continuous = continuousReadings(plan, wave, waveServers, now);
  const tripped = decideWave(parseReadings(continuous));
  if (tripped.outcome === "trip") {
    await saveReadings(client, rollout, wave, continuous, now); // the page shows the reading that tripped
    await rollBack(client, rollout, servers, tripped.reason, now, parseReadings(continuous));
    actions.push(`rolled back: ${tripped.guards.join(", ")}`);
    return false;
  }
  const allApplied = waveServers.every((s) => s.state === "applied");

  if (wave.state === "applying" || (wave.state === "holding" && wave.appliedAt === null)) {
    if (allApplied) {
      const appliedAt = new Date(Math.max(...waveServers.map((s) => s.appliedAt?.getTime() ?? now.getTime()), wave.releasedAt!.getTime()));
      const guardEndsAt = new Date(appliedAt.getTime() + plan.guardWindowMinutes * 60_000);
      await client.query(
        "UPDATE rollout_waves SET state = 'watching', applied_at = $3, guard_ends_at = $4, hold_reason = '' WHERE rollout_id = $1 AND wave = $2",
        [rollout.id, wave.wave, appliedAt, guardEndsAt],
      );
      await recordEvent(client, rollout, {
        kind: "wave.applied",
        wave: wave.wave,
        attempt: wave.attempt,
        message: `${wave.label}: all ${waveServers.length} server${waveServers.length === 1 ? "" : "s"} confirmed the policy; guard window until ${guardEndsAt.toISOString()}.`,
      });
      await saveReadings(client, rollout, wave, continuous, now);
      actions.push(`watching wave ${wave.wave}`);
      return false;
    }
    const timeout = continuous.find((r) => r.guard === "apply_timeout");
    if (timeout && wave.state !== "holding") await hold(client, rollout, wave, timeout.summary);
    await saveReadings(client, rollout, wave, continuous, now);
    return false;
  }

  // watching, or holding for want of data: the guard window has started.
  const appliedAt = wave.appliedAt!;
  const windowEnd = wave.guardEndsAt!;
  const settled = now.getTime() >= windowEnd.getTime() + settings.settleSeconds * 1000;
  if (!settled) {
    const after = { start: appliedAt, end: now };
    const readings = [
      ...continuous,
      await backoffReading(client, rollout.orgId, plan, waveServers, after, beforeWindow(wave, windowEnd.getTime() - appliedAt.getTime())),
    ];
    const decision = decideWave(parseReadings(readings));
    if (decision.outcome === "trip") {
      await saveReadings(client, rollout, wave, readings, now);
      await rollBack(client, rollout, servers, decision.reason, now, parseReadings(readings));
      actions.push(`rolled back: ${decision.guards.join(", ")}`);
      return false;
    }
    await saveReadings(client, rollout, wave, readings, now);
    return false;
  }

  // A holding wave is re-read at most once a minute: the reading is the heaviest query of a step.
  if (wave.state === "holding" && wave.readingsAt && now.getTime() - wave.readingsAt.getTime() < holdingRereadMs) return false;

  // The window is over: read it whole. A holding wave re-reads a window grown to now (at most a
  // day), since the data it lacked may have arrived; it is still one reading with enough data.
  const endMs =
    wave.state === "holding"
      ? Math.min(Math.max(windowEnd.getTime(), now.getTime() - settings.settleSeconds * 1000), appliedAt.getTime() + maxWindowMs)
      : windowEnd.getTime();
  const after = { start: appliedAt, end: new Date(endMs) };
  const started = performance.now();
  const readings = await windowEndReadings(
    client,
    rollout.orgId,
    plan,
    wave,
    waveServers,
    servers,
    after,
    beforeWindow(wave, endMs - appliedAt.getTime()),
    now,
  );
  const evaluationMs = performance.now() - started;
  const parsed = parseReadings(readings);
  const decision = decideWave(parsed);
  await saveReadings(client, rollout, wave, readings, now, evaluationMs);
  if (decision.outcome === "trip") {
    await rollBack(client, rollout, servers, decision.reason, now, parsed);
    actions.push(`rolled back: ${decision.guards.join(", ")}`);
    return false;
  }
  if (decision.outcome === "hold") {
    if (wave.state !== "holding" || wave.holdReason !== decision.reason)
      await hold(client, rollout, wave, decision.reason, wave.state !== "holding");
    actions.push(`holding wave ${wave.wave}`);
    return false;
  }
  await client.query("UPDATE rollout_waves SET state = 'passed', decided_at = $3, hold_reason = '' WHERE rollout_id = $1 AND wave = $2", [
    rollout.id,
    wave.wave,
    now,
  ]);
  await recordEvent(client, rollout, {
    kind: "wave.passed",
    wave: wave.wave,
    attempt: wave.attempt,
    message: `${wave.label} passed its guards: ${parsed
      .filter((r) => r.status === "pass")
      .map((r) => r.summary)
      .join(" ")}`,
    details: { evaluationMs: Math.round(evaluationMs) },
  });
  actions.push(`passed wave ${wave.wave}`);
  return true;
}

async function hold(client: pg.ClientBase, rollout: RolloutRow, wave: WaveRow, reason: string, announce = true): Promise<void> {
  await client.query("UPDATE rollout_waves SET state = 'holding', hold_reason = $3 WHERE rollout_id = $1 AND wave = $2", [
    rollout.id,
    wave.wave,
    reason.slice(0, 4000),
  ]);
  if (announce) {
    await recordEvent(client, rollout, {
      kind: "wave.held",
      wave: wave.wave,
      attempt: wave.attempt,
      message: `${wave.label} holds: ${reason} It goes on when the data is there, or when an owner or admin overrides the guard.`,
    });
  }
}
