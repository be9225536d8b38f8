// What a person does to a rollout: pause, resume, roll back, abort, or let a holding wave pass.
// Each locks the rollout row first (waiting for a worker step in progress to commit), checks the
// rollout is in a state the action makes sense in, and writes the timeline entry and the audit
// entry in the same transaction. The worker picks the new state up at once (the rollouts table's
// trigger wakes it) and materialises what servers must run.
import { inOrg, type Db } from "@/lib/db";
import { forbidden, notFound, ProblemError } from "@/lib/problem";
import { isUuid } from "@/lib/uuid";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";
import { overrideInput, type OverrideInput, type RolloutStatus } from "../types/rollout";
import { restoreDeclaredState } from "./restore-declared";
import { sqlOfPrisma, type RolloutSql } from "./sql";

export type RolloutActor = Pick<OrgContext, "orgId" | "userId" | "role">;
export type RolloutAction = "pause" | "resume" | "rollback" | "abort";

interface Locked {
  id: string;
  title: string;
  status: RolloutStatus;
}

async function lock(sql: RolloutSql, orgId: string, rolloutId: string): Promise<Locked> {
  const { rows } = await sql.query<Locked>(
    "SELECT id::text AS id, title, status FROM rollouts WHERE org_id = $1 AND id = $2::uuid FOR UPDATE",
    [orgId, rolloutId],
  );
  if (!rows[0]) throw notFound("This rollout");
  return rows[0];
}

async function record(
  sql: RolloutSql,
  actor: RolloutActor,
  rollout: Locked,
  kind: string,
  action: string,
  message: string,
  details: Record<string, unknown> = {},
  wave: number | null = null,
) {
  await sql.query(
    "INSERT INTO rollout_events (org_id, rollout_id, kind, wave, actor_id, message, details) VALUES ($1, $2::uuid, $3, $4, $5, $6, $7::jsonb)",
    [actor.orgId, rollout.id, kind, wave, actor.userId, message, JSON.stringify(details)],
  );
  await sql.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, $3, $4, $5::jsonb)", [
    actor.orgId,
    actor.userId,
    action,
    rollout.id,
    JSON.stringify({ title: rollout.title, ...details }),
  ]);
}

const finished = (rollout: Locked) =>
  new ProblemError(
    409,
    "Rollout finished",
    `"${rollout.title}" is ${rollout.status}; a finished rollout cannot change. Start a new change instead.`,
  );

async function pause(sql: RolloutSql, actor: RolloutActor, rollout: Locked) {
  if (rollout.status !== "running") throw new ProblemError(409, "Not running", `"${rollout.title}" is ${rollout.status}, not running.`);
  await sql.query("UPDATE rollouts SET status = 'paused', status_reason = 'Paused by hand', updated_at = now() WHERE id = $1::uuid", [
    rollout.id,
  ]);
  await record(sql, actor, rollout, "rollout.paused", "rollout.paused", "Paused: no further wave goes out until it is resumed.");
}

/**
 * Waves rolled back go out again from the first of them (a new attempt, a new guard window): a
 * person has looked at why the guard tripped and decided to try again.
 */
async function resume(sql: RolloutSql, actor: RolloutActor, rollout: Locked) {
  if (rollout.status !== "paused") throw new ProblemError(409, "Not paused", `"${rollout.title}" is ${rollout.status}, not paused.`);
  const { rows: again } = await sql.query<{ wave: number }>(
    `UPDATE rollout_waves SET state = 'pending', attempt = attempt + 1, released_at = NULL, applied_at = NULL, guard_ends_at = NULL, decided_at = NULL,
            hold_reason = '', readings = '[]', readings_at = NULL
      WHERE rollout_id = $1::uuid AND state = 'rolled_back' RETURNING wave`,
    [rollout.id],
  );
  if (again.length > 0) {
    await sql.query("UPDATE rollout_servers SET state = 'held', target_hash = NULL WHERE rollout_id = $1::uuid AND state = 'rolled_back'", [
      rollout.id,
    ]);
  }
  await sql.query("UPDATE rollouts SET status = 'running', status_reason = '', updated_at = now() WHERE id = $1::uuid", [rollout.id]);
  await record(
    sql,
    actor,
    rollout,
    "rollout.resumed",
    "rollout.resumed",
    again.length > 0
      ? `Resumed: ${again.length} rolled-back wave${again.length === 1 ? "" : "s"} go${again.length === 1 ? "es" : ""} out again from the first, each with a new guard window.`
      : "Resumed.",
    { wavesAgain: again.map((w) => w.wave) },
  );
}

/** Every released server back to the policy it had before; the rollout pauses. */
async function rollback(sql: RolloutSql, actor: RolloutActor, rollout: Locked) {
  if (rollout.status !== "running" && rollout.status !== "paused") throw finished(rollout);
  const { rows: moved } = await sql.query<{ server_id: string }>(
    `UPDATE rollout_servers SET state = 'rolled_back', rolled_back_at = now(), target_hash = NULL, rollback_confirmed_at = NULL
      WHERE rollout_id = $1::uuid AND state IN ('pushed', 'applied', 'failed') RETURNING server_id::text AS server_id`,
    [rollout.id],
  );
  await sql.query(
    "UPDATE rollout_waves SET state = 'rolled_back', decided_at = now() WHERE rollout_id = $1::uuid AND state IN ('applying', 'watching', 'holding', 'passed')",
    [rollout.id],
  );
  const {
    rows: [who],
  } = await sql.query<{ name: string }>("SELECT name FROM users WHERE id = $1", [actor.userId]);
  const reason = `rolled back by ${who?.name ?? "a member"}`;
  await sql.query("UPDATE rollouts SET status = 'paused', status_reason = $2, updated_at = now() WHERE id = $1::uuid", [
    rollout.id,
    `Rolled back: ${reason}.`,
  ]);
  await record(
    sql,
    actor,
    rollout,
    "rollout.rolled_back",
    "rollout.rolled_back",
    `${moved.length} server${moved.length === 1 ? "" : "s"} rolled back to the policy ${moved.length === 1 ? "it" : "each"} had before, and the rollout paused (${reason}).`,
    { servers: moved.length, automatic: false },
  );
  // Each server's charts mark the rollback with the policy it goes back to.
  await sql.query(
    `INSERT INTO server_events (org_id, server_id, at, kind, details)
     SELECT rs.org_id, rs.server_id, now(), 'policy.rolled_back',
            jsonb_build_object('rolloutId', rs.rollout_id::text, 'title', $3::text, 'reason', $4::text, 'hash', rs.before_hash)
       FROM rollout_servers rs WHERE rs.rollout_id = $1::uuid AND rs.server_id = ANY($2::uuid[])`,
    [rollout.id, moved.map((m) => m.server_id), rollout.title, reason],
  );
}

/** Ends the rollout: the declared state goes back to what it was, so every server runs its previous policy. */
async function abort(sql: RolloutSql, actor: RolloutActor, rollout: Locked) {
  if (rollout.status !== "running" && rollout.status !== "paused") throw finished(rollout);
  const restored = await restoreDeclaredState(sql, actor, rollout);
  await sql.query(
    "UPDATE rollouts SET status = 'aborted', status_reason = $2, updated_at = now(), finished_at = now() WHERE id = $1::uuid",
    [rollout.id, `Aborted; ${restored.join("; ") || "nothing to restore"}.`],
  );
  await record(
    sql,
    actor,
    rollout,
    "rollout.aborted",
    "rollout.aborted",
    `Aborted: every server goes back to the policy it had before. ${restored.join("; ") || "Nothing to restore"}.`,
    { restored },
  );
}

const actions: Record<RolloutAction, (sql: RolloutSql, actor: RolloutActor, rollout: Locked) => Promise<void>> = {
  pause,
  resume,
  rollback,
  abort,
};

export async function controlRollout(db: Db, actor: RolloutActor, rolloutId: string, action: RolloutAction): Promise<void> {
  if (!can(actor.role, { rollout: ["control"] }))
    throw forbidden(`Your role (${actor.role}) can follow rollouts but not control them; ask an owner or admin.`);
  if (!isUuid(rolloutId)) throw notFound("This rollout");
  await inOrg(db, actor.orgId, async (tx) => {
    const sql = sqlOfPrisma(tx);
    await actions[action](sql, actor, await lock(sql, actor.orgId, rolloutId));
  });
}

/** Lets a holding wave pass although its guards lack data; the reason is kept in the audit log. */
export async function overrideGuard(db: Db, actor: RolloutActor, rolloutId: string, rawInput: OverrideInput): Promise<void> {
  if (!can(actor.role, { rollout: ["override"] }))
    throw forbidden(`Your role (${actor.role}) cannot override a rollout's guards; ask an owner or admin.`);
  const input = overrideInput.parse(rawInput);
  if (!isUuid(rolloutId)) throw notFound("This rollout");
  await inOrg(db, actor.orgId, async (tx) => {
    const sql = sqlOfPrisma(tx);
    const rollout = await lock(sql, actor.orgId, rolloutId);
    if (rollout.status !== "running" && rollout.status !== "paused") throw finished(rollout);
    const {
      rows: [wave],
    } = await sql.query<{ label: string; state: string; hold_reason: string }>(
      "SELECT label, state, hold_reason FROM rollout_waves WHERE rollout_id = $1::uuid AND wave = $2",
      [rollout.id, input.wave],
    );
    if (!wave) throw notFound("This wave");
    if (wave.state !== "holding")
      throw new ProblemError(
        409,
        "Not holding",
        `${wave.label} is ${wave.state.replace("_", " ")}; only a holding wave's guards can be overridden.`,
      );
    await sql.query(
      "UPDATE rollout_waves SET state = 'passed', decided_at = now(), overridden_by = $3, overridden_at = now() WHERE rollout_id = $1::uuid AND wave = $2",
      [rollout.id, input.wave, actor.userId],
    );
    await sql.query("UPDATE rollouts SET updated_at = now() WHERE id = $1::uuid", [rollout.id]); // wakes the worker
    await record(
      sql,
      actor,
      rollout,
      "guard.overridden",
      "rollout.guard_overridden",
      `${wave.label} passed by override: ${input.reason} (it held because: ${wave.hold_reason || "its guards lacked data"})`,
      { wave: input.wave, reason: input.reason, held: wave.hold_reason },
      input.wave,
    );
  });
}
