// Rollout fixtures for the worker's tests: an organisation, a policy assigned to a tag with a new
// version saved as a rollout, in the rows the console writes when it creates one (the console's
// own operation is tested in apps/console); a stand-in for the gateway that records what each
// agent reports; and read-cache telemetry with a chosen miss ratio.
import { parseRolloutPlan, planWaves, type RolloutPlanInput } from "@spindle/domain";
import type pg from "pg";
import { recomputeEffectivePolicies } from "../jobs/effective-policy.js";

export interface RolloutFixture {
  orgId: string;
  policyId: string;
  rolloutId: string;
  /** Tagged servers the rollout changes, and untagged ones it does not. */
  tagged: string[];
  untagged: string[];
  hostnames: Map<string, string>;
}

export const versionOne = { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/db/**"] } };
export const versionTwo = { schemaVersion: 1, readCache: { enabled: true, include: ["/srv/db/**"], budgetPercentOfAvailable: 30 } };

export async function createOrgWithServers(pool: pg.Pool, orgId: string, tagged: number, untagged: number) {
  await pool.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [orgId]);
  const hostnames = new Map<string, string>();
  const make = async (count: number, prefix: string, tags: string[]) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { rows } = await pool.query<{ id: string }>(
        "INSERT INTO servers (org_id, machine_id, hostname, os, tags, last_seen_at) VALUES ($1, $2, $3, 'linux', $4, now()) RETURNING id::text",
        [orgId, `${prefix}-${i}`, `${prefix}-${i}`, tags],
      );
      ids.push(rows[0]!.id);
      hostnames.set(rows[0]!.id, `${prefix}-${i}`);
    }
    return ids;
  };
  return { tagged: await make(tagged, "db", ["db"]), untagged: await make(untagged, "web", []), hostnames };
}

/**
 * Policy "db" v1 assigned to tag db and materialised, then v2 saved with a rollout of the tag's
 * slot held at v1, as the console's createRollout writes it.
 */
export async function createRolloutFixture(
  pool: pg.Pool,
  orgId: string,
  planInput: RolloutPlanInput,
  counts = { tagged: 6, untagged: 3 },
): Promise<RolloutFixture> {
  const { tagged, untagged, hostnames } = await createOrgWithServers(pool, orgId, counts.tagged, counts.untagged);
  const {
    rows: [policy],
  } = await pool.query<{ id: string }>("INSERT INTO policies (org_id, name) VALUES ($1, 'db') RETURNING id::text", [orgId]);
  const {
    rows: [v1],
  } = await pool.query<{ id: string }>(
    "INSERT INTO policy_versions (policy_id, org_id, version, document) VALUES ($1, $2, 1, $3) RETURNING id::text",
    [policy!.id, orgId, JSON.stringify(versionOne)],
  );
  await pool.query("INSERT INTO policy_assignments (org_id, policy_id, scope, tag) VALUES ($1, $2, 'tag', 'db')", [orgId, policy!.id]);
  await recomputeEffectivePolicies(pool, orgId);

  const plan = parseRolloutPlan(planInput);
  const {
    rows: [rollout],
  } = await pool.query<{ id: string }>(
    `INSERT INTO rollouts (org_id, kind, title, policy_id, policy_version, plan) VALUES ($1, 'policy_version', 'Policy "db" version 2', $2, 2, $3) RETURNING id::text`,
    [orgId, policy!.id, JSON.stringify(plan)],
  );
  await pool.query("INSERT INTO policy_versions (policy_id, org_id, version, document) VALUES ($1, $2, 2, $3)", [
    policy!.id,
    orgId,
    JSON.stringify(versionTwo),
  ]);
  await pool.query(
    "INSERT INTO rollout_slots (org_id, rollout_id, scope, tag, before_policy_id, before_version_id, after_policy_id) VALUES ($1, $2, 'tag', 'db', $3, $4, $3)",
    [orgId, rollout!.id, policy!.id, v1!.id],
  );
  const waves = planWaves(
    tagged.map((id) => ({ id, hostname: hostnames.get(id)!, tags: ["db"] })),
    plan,
    rollout!.id,
  );
  if (!waves.ok) throw new Error(waves.message);
  for (const wave of waves.waves) {
    await pool.query("INSERT INTO rollout_waves (org_id, rollout_id, wave, label, percent) VALUES ($1, $2, $3, $4, $5)", [
      orgId,
      rollout!.id,
      wave.index,
      wave.label,
      wave.percent,
    ]);
    for (const serverId of wave.serverIds) {
      await pool.query(
        `INSERT INTO rollout_servers (org_id, rollout_id, server_id, wave, before_hash)
         SELECT $1, $2, $3, $4, hash FROM server_effective_policies WHERE server_id = $3`,
        [orgId, rollout!.id, serverId, wave.index],
      );
    }
  }
  return { orgId, policyId: policy!.id, rolloutId: rollout!.id, tagged, untagged, hostnames };
}

/** The gateway's part: each agent of `serverIds` reports APPLIED (or FAILED) for its effective policy now. */
export async function agentsReport(
  pool: pg.Pool,
  serverIds: readonly string[],
  at: Date,
  outcome: "applied" | { failed: string } = "applied",
): Promise<void> {
  for (const serverId of serverIds) {
    const {
      rows: [effective],
    } = await pool.query<{ org_id: string; hash: string }>("SELECT org_id, hash FROM server_effective_policies WHERE server_id = $1", [
      serverId,
    ]);
    if (outcome === "applied") {
      await pool.query(
        `INSERT INTO server_policy_status (org_id, server_id, desired_version_hash, reported_hash, applied_hash, status, message, reported_at, applied_at)
         VALUES ($1, $2, $3, $3, $3, 'applied', '', $4, $4)
         ON CONFLICT (server_id) DO UPDATE SET desired_version_hash = $3, reported_hash = $3, applied_at = CASE WHEN server_policy_status.applied_hash = $3 THEN server_policy_status.applied_at ELSE $4 END,
           applied_hash = $3, status = 'applied', message = '', reported_at = $4`,
        [effective!.org_id, serverId, effective!.hash, at],
      );
    } else {
      await pool.query(
        `INSERT INTO server_policy_status (org_id, server_id, desired_version_hash, reported_hash, status, message, reported_at)
         VALUES ($1, $2, $3, $3, 'failed', $4, $5)
         ON CONFLICT (server_id) DO UPDATE SET desired_version_hash = $3, reported_hash = $3, status = 'failed', message = $4, reported_at = $5`,
        [effective!.org_id, serverId, effective!.hash, outcome.failed, at],
      );
    }
  }
  await pool.query("UPDATE servers SET last_seen_at = $2 WHERE id = ANY($1::uuid[])", [serverIds, at]);
}

export async function effectiveHash(pool: pg.Pool, serverId: string): Promise<string> {
  const { rows } = await pool.query<{ hash: string }>("SELECT hash FROM server_effective_policies WHERE server_id = $1", [serverId]);
  return rows[0]!.hash;
}

/**
 * Read-cache rows every 10 s over [from, to) with a miss ratio per server (a little noise per
 * server and row, as real servers have), 1 MiB read per row.
 */
export async function insertReadCache(
  pool: pg.Pool,
  orgId: string,
  ratios: Map<string, number>,
  from: Date,
  to: Date,
  backoffs = new Map<string, number>(),
): Promise<void> {
  const times: Date[] = [];
  for (let t = from.getTime(); t < to.getTime(); t += 10_000) times.push(new Date(t));
  let i = 0;
  for (const [serverId, ratio] of ratios) {
    i++;
    const noisy = times.map((_, k) => Math.min(1, Math.max(0, ratio * (1 + 0.05 * Math.sin(k * 1.7 + i * 2.3)))));
    await pool.query(
      `INSERT INTO read_cache (time, org_id, server_id, interval_seconds, hits_bytes, misses_bytes, backoffs)
       SELECT t, $1, $2, 10, (1048576 * (1 - r))::bigint, (1048576 * r)::bigint, CASE WHEN k = 1 THEN $5::bigint ELSE 0 END
       FROM unnest($3::timestamptz[], $4::float8[]) WITH ORDINALITY AS x(t, r, k)`,
      [orgId, serverId, times, noisy, backoffs.get(serverId) ?? 0],
    );
  }
}

/** Every server keeps reporting, as live agents do (the offline guard reads last_seen_at). */
export async function heartbeat(pool: pg.Pool, orgId: string, at: Date): Promise<void> {
  await pool.query("UPDATE servers SET last_seen_at = $2 WHERE org_id = $1", [orgId, at]);
}
