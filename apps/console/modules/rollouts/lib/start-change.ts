// Every policy change that reaches servers goes through here, inside the transaction that makes
// it: a policy version saved, an assignment made or removed, a recommendation applied, a policy
// assigned to many servers from the fleet page. It decides how the change goes out (docs/policy.md,
// "Rollouts"): at once, or as a rollout whose waves the worker releases one after another. A
// rollout records the slots the change touched with the layer each had before, then the change
// is made, and the servers whose effective policy it changes are split into waves; until a wave
// releases them they keep merging the previous layer, so nothing reaches them early.
import { randomUUID } from "node:crypto";
import { describeRolloutPlan, parseRolloutPlan, planWaves, type RolloutPlan } from "@spindle/domain";
import type { AssignmentScope } from "@spindle/policy";
import { ProblemError } from "@/lib/problem";
import type { ChangeOutcome, Delivery } from "../types/rollout";
import { fleetPolicies } from "./fleet-policies";
import { readRolloutsRequired } from "./rollout-settings";
import type { RolloutSql } from "./sql";

/** One assignment slot a change touches, and the layer it held before (null: none). */
export interface SlotChange {
  scope: AssignmentScope;
  tag: string | null;
  serverId: string | null;
  before: { policyId: string; versionId: string } | null;
  /** The policy the slot holds after the change (null: the change removes the assignment). */
  afterPolicyId: string | null;
}

export interface ChangeRequest {
  kind: "policy_version" | "assignment" | "recommendation";
  /** "Policy “postgres” version 4", "Assign “postgres” to tag db". */
  title: string;
  policyId?: string | null;
  policyVersion?: number | null;
  recommendationId?: string | null;
  slots: SlotChange[];
}

export interface ChangeActor {
  orgId: string;
  userId: string;
}

const describeSlot = (slot: { scope: string; tag: string | null; serverId: string | null }) =>
  slot.scope === "organization" ? "the organisation default" : slot.scope === "tag" ? `tag ${slot.tag}` : "a server's own policy";

/**
 * A slot held by a running or paused rollout cannot change until that rollout completes or is
 * aborted: its servers would otherwise be judged against a moving target. Serialised per
 * organisation, so two changes cannot both pass this check and then collide.
 */
async function refuseConflicts(sql: RolloutSql, orgId: string, request: ChangeRequest): Promise<void> {
  await sql.query("SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext('spindle.rollouts'), hashtext($1))", [orgId]);
  const { rows } = await sql.query<{
    id: string;
    title: string;
    scope: string;
    tag: string | null;
    server_id: string | null;
    after_policy_id: string | null;
  }>(
    `SELECT r.id::text AS id, r.title, sl.scope, sl.tag, sl.server_id::text AS server_id, sl.after_policy_id::text AS after_policy_id
       FROM rollouts r JOIN rollout_slots sl ON sl.org_id = r.org_id AND sl.rollout_id = r.id
      WHERE r.org_id = $1 AND r.status IN ('running', 'paused')`,
    [orgId],
  );
  for (const held of rows) {
    const sameSlot = request.slots.some((slot) => slot.scope === held.scope && slot.tag === held.tag && slot.serverId === held.server_id);
    const samePolicy = request.kind === "policy_version" && request.policyId && held.after_policy_id === request.policyId;
    if (sameSlot || samePolicy) {
      throw new ProblemError(
        409,
        "Rollout in progress",
        `The rollout "${held.title}" is still changing ${describeSlot({ ...held, serverId: held.server_id })}; wait until it completes, or roll it back and abort it, before changing it again.`,
        { rolloutId: held.id },
      );
    }
  }
}

/** Organisation- or tag-wide, or several servers: what the organisation setting sends through a rollout. */
function isWide(request: ChangeRequest): boolean {
  return request.slots.some((slot) => slot.scope !== "server") || request.slots.filter((slot) => slot.scope === "server").length > 1;
}

async function chooseDelivery(
  sql: RolloutSql,
  orgId: string,
  request: ChangeRequest,
  delivery: Delivery | undefined,
): Promise<RolloutPlan | "now"> {
  if (delivery?.mode === "now") return "now";
  if (delivery?.mode === "rollout") return parseRolloutPlan(delivery.plan ?? {});
  if (isWide(request) && (await readRolloutsRequired(sql, orgId))) return parseRolloutPlan({});
  return "now";
}

/**
 * Runs `apply` (the change itself, in the caller's transaction) either at once or as the start
 * of a rollout; `apply` may complete the request (title, version, the slots' new policy) once it knows them. A plan that cannot be made (a canary tag no affected server carries) throws a 422
 * and the caller's transaction rolls the change back with it.
 */
export async function startChange(
  sql: RolloutSql,
  actor: ChangeActor,
  requested: ChangeRequest,
  delivery: Delivery | undefined,
  // biome-ignore lint/suspicious/noConfusingVoidType: an apply that returns nothing (Promise<void>) is allowed
  apply: () => Promise<Partial<Omit<ChangeRequest, "kind">> | void>,
): Promise<ChangeOutcome> {
  let request = requested;
  await refuseConflicts(sql, actor.orgId, request);
  const plan = await chooseDelivery(sql, actor.orgId, request, delivery);
  if (plan === "now") {
    request = { ...request, ...(await apply()) };
    if (delivery?.mode === "now") {
      await sql.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, 'policy.applied_now', $3, $4)", [
        actor.orgId,
        actor.userId,
        request.policyId ?? "",
        JSON.stringify({ title: request.title, slots: request.slots.map(describeSlot) }),
      ]);
    }
    return { mode: "now", reason: delivery?.mode === "now" ? "applied at once, as asked" : "this change does not need a rollout" };
  }

  const before = await fleetPolicies(sql, actor.orgId);
  request = { ...request, ...(await apply()) };
  const after = await fleetPolicies(sql, actor.orgId);
  const affected = after.servers.filter((server) => {
    const next = after.hashes.get(server.id);
    return next !== null && next !== undefined && next !== before.hashes.get(server.id);
  });
  const invalid = after.servers.filter((server) => after.hashes.get(server.id) === null && before.hashes.get(server.id) !== null);
  if (affected.length === 0) {
    return { mode: "now", reason: "no server's effective policy changes, so there is nothing to roll out" };
  }
  const rolloutId = randomUUID();
  const waves = planWaves(affected, plan, rolloutId);
  if (!waves.ok) throw new ProblemError(422, "Rollout cannot be planned", waves.message);

  await sql.query(
    `INSERT INTO rollouts (id, org_id, kind, title, policy_id, policy_version, recommendation_id, plan, created_by)
     VALUES ($1::uuid, $2, $3, $4, $5::uuid, $6, $7::uuid, $8::jsonb, $9)`,
    [
      rolloutId,
      actor.orgId,
      request.kind,
      request.title.slice(0, 300),
      request.policyId ?? null,
      request.policyVersion ?? null,
      request.recommendationId ?? null,
      JSON.stringify(plan),
      actor.userId,
    ],
  );
  for (const slot of request.slots) {
    await sql.query(
      `INSERT INTO rollout_slots (org_id, rollout_id, scope, tag, server_id, before_policy_id, before_version_id, after_policy_id)
       VALUES ($1, $2::uuid, $3, $4, $5::uuid, $6::uuid, $7::uuid, $8::uuid)`,
      [
        actor.orgId,
        rolloutId,
        slot.scope,
        slot.tag,
        slot.serverId,
        slot.before?.policyId ?? null,
        slot.before?.versionId ?? null,
        slot.afterPolicyId,
      ],
    );
  }
  for (const wave of waves.waves) {
    await sql.query("INSERT INTO rollout_waves (org_id, rollout_id, wave, label, percent) VALUES ($1, $2::uuid, $3, $4, $5)", [
      actor.orgId,
      rolloutId,
      wave.index,
      wave.label,
      wave.percent,
    ]);
  }
  const rows = waves.waves.flatMap((wave) => wave.serverIds.map((id) => ({ id, wave: wave.index })));
  await sql.query(
    `INSERT INTO rollout_servers (org_id, rollout_id, server_id, wave, before_hash, planned_hash)
     SELECT $1, $2::uuid, x.id, x.wave, x.before_hash, x.planned_hash
       FROM unnest($3::uuid[], $4::int[], $5::text[], $6::text[]) AS x(id, wave, before_hash, planned_hash)`,
    [
      actor.orgId,
      rolloutId,
      rows.map((r) => r.id),
      rows.map((r) => r.wave),
      rows.map((r) => before.hashes.get(r.id) ?? null),
      rows.map((r) => after.hashes.get(r.id)),
    ],
  );
  const message =
    `Started: ${affected.length} server${affected.length === 1 ? "" : "s"} in ${waves.waves.length} wave${waves.waves.length === 1 ? "" : "s"}. ${describeRolloutPlan(plan)}.` +
    (invalid.length > 0
      ? ` ${invalid.length} server${invalid.length === 1 ? "" : "s"} (${invalid
          .slice(0, 3)
          .map((s) => s.hostname)
          .join(", ")}) would get an invalid policy and keep the one they run; see their policy panel.`
      : "");
  await sql.query(
    "INSERT INTO rollout_events (org_id, rollout_id, kind, actor_id, message, details) VALUES ($1, $2::uuid, 'rollout.created', $3, $4, $5::jsonb)",
    [
      actor.orgId,
      rolloutId,
      actor.userId,
      message,
      JSON.stringify({ servers: affected.length, waves: waves.waves.length, invalid: invalid.map((s) => s.id) }),
    ],
  );
  await sql.query("INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, 'rollout.created', $3, $4::jsonb)", [
    actor.orgId,
    actor.userId,
    rolloutId,
    JSON.stringify({ title: request.title, servers: affected.length, waves: waves.waves.length, plan: describeRolloutPlan(plan) }),
  ]);
  return { mode: "rollout", rolloutId, servers: affected.length, waves: waves.waves.length };
}
