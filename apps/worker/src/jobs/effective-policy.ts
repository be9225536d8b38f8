// Materialises server_effective_policies: for every server of an organisation, merge its layers
// and store the result where gateways read it. Only rows that change are written, so the
// trigger on the table announces (spindle_effective_policy_changed) exactly the servers whose
// policy hash moved.
import { isDeepStrictEqual } from "node:util";
import type pg from "pg";
import { assignmentsDuringRollouts } from "@spindle/policy";
import { layersOfServer, type AssignedVersion, type LayerSource } from "./effective-policy-layers.js";
import { mergeLayers } from "./effective-policy-merge.js";
import { loadHeldSlots } from "./effective-policy-rollouts.js";

export interface RecomputeResult {
  organizations: number;
  servers: number;
  /** Rows whose document and hash changed (each announced to the gateways). */
  changed: number;
  /** Servers whose layers merge into an invalid policy (previous document kept). */
  invalid: number;
}

interface StoredRow {
  hash: string | null;
  layers: LayerSource[];
  error: string | null;
}

const emptyResult = (): RecomputeResult => ({ organizations: 0, servers: 0, changed: 0, invalid: 0 });

/** Recompute one organisation (orgId) or every organisation with servers (null). */
export async function recomputeEffectivePolicies(pool: pg.Pool, orgId: string | null): Promise<RecomputeResult> {
  const orgIds = orgId !== null ? [orgId] : await organisationsWithServers(pool);
  const total = emptyResult();
  for (const id of orgIds) {
    const result = await recomputeOrganization(pool, id);
    total.organizations += result.organizations;
    total.servers += result.servers;
    total.changed += result.changed;
    total.invalid += result.invalid;
  }
  return total;
}

/**
 * Which organisations have servers: the one cross-tenant read of this job, so it runs as
 * spindle_system (row-level security hides every row from spindle_worker without an
 * organisation set); each organisation is then recomputed as spindle_worker inside its own.
 */
async function organisationsWithServers(pool: pg.Pool): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SET LOCAL ROLE spindle_system");
    const { rows } = await client.query<{ org_id: string }>("SELECT DISTINCT org_id FROM servers ORDER BY org_id");
    await client.query("COMMIT");
    return rows.map((r) => r.org_id);
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * One transaction per organisation under an advisory lock: two recomputes of one organisation
 * (two worker processes, or a NOTIFY racing the periodic sweep) run one after the other, and the
 * second reads everything the first saw, so an older snapshot can never overwrite a newer one.
 */
async function recomputeOrganization(pool: pg.Pool, orgId: string): Promise<RecomputeResult> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // Row-level security: this transaction sees and writes only this organisation's rows.
    await client.query("SET LOCAL ROLE spindle_worker");
    await client.query("SELECT set_config('spindle.org_id', $1, true)", [orgId]);
    const result = await recomputeOrganizationInTransaction(client, orgId);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The recompute inside a transaction the caller opened as spindle_worker in `orgId`: a rollout
 * step releases or rolls back servers and materialises what they must run in one commit, so no
 * gateway ever sees one without the other.
 */
export async function recomputeOrganizationInTransaction(client: pg.ClientBase, orgId: string): Promise<RecomputeResult> {
  await client.query("SELECT pg_advisory_xact_lock(hashtext('spindle.effective_policy'), hashtext($1))", [orgId]);
  const servers = await client.query<{ id: string; tags: string[] }>("SELECT id::text, tags FROM servers WHERE org_id = $1 ORDER BY id", [
    orgId,
  ]);
  const assignments = await loadAssignedVersions(client, orgId);
  const stored = await loadStoredRows(client, orgId);
  const held = await loadHeldSlots(
    client,
    orgId,
    servers.rows.map((server) => server.id),
  );

  const result: RecomputeResult = { organizations: 1, servers: servers.rows.length, changed: 0, invalid: 0 };
  for (const server of servers.rows) {
    const layers = layersOfServer(server, assignmentsDuringRollouts(assignments, held.get(server.id) ?? []));
    const sources = layers.map((layer) => layer.source);
    const merged = mergeLayers(layers);
    const previous = stored.get(server.id);
    if (merged.ok) {
      if (previous && previous.hash === merged.hash && previous.error === null && isDeepStrictEqual(previous.layers, sources)) continue;
      await client.query(
        `INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers, computed_at, error, error_at)
         VALUES ($1, $2, $3, $4, $5, now(), NULL, NULL)
         ON CONFLICT (server_id) DO UPDATE
           SET document = EXCLUDED.document, hash = EXCLUDED.hash, layers = EXCLUDED.layers,
               computed_at = now(), error = NULL, error_at = NULL`,
        [orgId, server.id, JSON.stringify(merged.document), merged.hash, JSON.stringify(sources)],
      );
      if (previous?.hash !== merged.hash) result.changed++;
      continue;
    }
    result.invalid++;
    if (previous?.error === merged.message) continue;
    // The previous valid document, its hash and its layers stay: agents keep what works.
    await client.query(
      `INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers, computed_at, error, error_at)
       VALUES ($1, $2, NULL, NULL, '[]', now(), $3, now())
       ON CONFLICT (server_id) DO UPDATE SET error = EXCLUDED.error, error_at = now(), computed_at = now()`,
      [orgId, server.id, merged.message],
    );
  }
  return result;
}

async function loadAssignedVersions(client: pg.ClientBase, orgId: string): Promise<AssignedVersion[]> {
  const { rows } = await client.query<{
    scope: AssignedVersion["scope"];
    tag: string | null;
    server_id: string | null;
    policy_id: string;
    policy_name: string;
    version_id: string;
    version: number;
    document: Record<string, unknown>;
  }>(
    `SELECT a.scope, a.tag, a.server_id::text, p.id::text AS policy_id, p.name AS policy_name,
            v.id::text AS version_id, v.version, v.document
       FROM policy_assignments a
       JOIN policies p ON p.id = a.policy_id AND p.org_id = a.org_id
       JOIN LATERAL (
         SELECT id, version, document FROM policy_versions
          WHERE policy_id = p.id ORDER BY version DESC LIMIT 1
       ) v ON true
      WHERE a.org_id = $1`,
    [orgId],
  );
  return rows.map((r) => ({
    scope: r.scope,
    tag: r.tag,
    serverId: r.server_id,
    policyId: r.policy_id,
    policyName: r.policy_name,
    versionId: r.version_id,
    version: r.version,
    document: r.document,
  }));
}

async function loadStoredRows(client: pg.ClientBase, orgId: string): Promise<Map<string, StoredRow>> {
  const { rows } = await client.query<{ server_id: string; hash: string | null; layers: LayerSource[]; error: string | null }>(
    "SELECT server_id::text, hash, layers, error FROM server_effective_policies WHERE org_id = $1",
    [orgId],
  );
  return new Map(rows.map((r) => [r.server_id, { hash: r.hash, layers: r.layers, error: r.error }]));
}
