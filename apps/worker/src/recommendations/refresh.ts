// One organisation's recommendations brought up to date: every server's findings upserted (the
// same finding updates its row, a new one inserts), findings that no longer hold marked resolved,
// expired snoozes reopened, and applied recommendations whose window has passed given their
// realised effect. Runs as spindle_worker with the organisation set, under a per-organisation
// lock, so two workers refreshing at once write each row once.
import { withOrgTransaction, type TenantQueryable } from "@spindle/db";
import type { RecommendationFinding } from "@spindle/domain";
import type pg from "pg";
import { readServerEvidence } from "./evidence.js";
import { findingsForServer } from "./generate.js";
import { realiseApplied } from "./realise.js";

export interface RefreshSettings {
  /** How long after the agent applied a recommendation its realised effect is computed. */
  realiseAfterSeconds: number;
}

export interface OrgRefresh {
  servers: number;
  findings: number;
  /** Ids of rows this refresh created (new findings). */
  created: string[];
  resolved: number;
  reopened: number;
  realised: number;
}

export async function refreshOrganization(pool: pg.Pool, orgId: string, now: Date, settings: RefreshSettings): Promise<OrgRefresh> {
  const client = await pool.connect();
  try {
    return await withOrgTransaction(client, orgId, "spindle_worker", (tx) => refreshInTransaction(tx, orgId, now, settings));
  } finally {
    client.release();
  }
}

async function refreshInTransaction(tx: TenantQueryable, orgId: string, now: Date, settings: RefreshSettings): Promise<OrgRefresh> {
  // The console's Apply takes the same lock, so no recommendation turns applied between the
  // in-flight read below and the upserts (which would raise its finding again as a new row).
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('spindle.recommendations'), hashtext($1))", [orgId]);
  const servers = (await tx.query("SELECT id FROM servers WHERE org_id = $1 ORDER BY id", [orgId])).rows.map((r) => r.id as string);
  const result: OrgRefresh = { servers: servers.length, findings: 0, created: [], resolved: 0, reopened: 0, realised: 0 };

  const reopened = await tx.query(
    `UPDATE recommendations SET status = 'open', snoozed_until = NULL, status_changed_at = $2, status_changed_by = NULL
     WHERE org_id = $1 AND status = 'snoozed' AND snoozed_until <= $2 RETURNING id`,
    [orgId, now],
  );
  result.reopened = reopened.rows.length;

  // An applied recommendation still waiting for its realised effect holds its finding: the
  // evidence that made it predates the change (the agent may not even have applied it yet).
  const inFlight = new Set(
    (
      await tx.query("SELECT server_id, kind, subject FROM recommendations WHERE org_id = $1 AND status = 'applied' AND realised IS NULL", [
        orgId,
      ])
    ).rows.map((r) => findingKey(r.server_id, r.kind, r.subject)),
  );

  for (const serverId of servers) {
    const findings = findingsForServer(await readServerEvidence(tx, orgId, serverId, now)).filter(
      (f) => !inFlight.has(findingKey(f.serverId, f.kind, f.subject)),
    );
    result.findings += findings.length;
    for (const finding of findings) {
      const id = await upsertFinding(tx, orgId, finding, now);
      if (id !== null) result.created.push(id);
    }
  }

  // What this refresh did not find again no longer holds; it comes back (resolved_at cleared) if found later.
  const resolved = await tx.query(
    `UPDATE recommendations SET resolved_at = $2
     WHERE org_id = $1 AND status <> 'applied' AND resolved_at IS NULL AND refreshed_at < $2 RETURNING id`,
    [orgId, now],
  );
  result.resolved = resolved.rows.length;
  result.realised = await realiseApplied(tx, orgId, now, settings.realiseAfterSeconds);
  return result;
}

const findingKey = (serverId: string, kind: string, subject: string) => JSON.stringify([serverId, kind, subject]);

/** Inserts a new finding (returns its id) or updates the live row of the same finding (returns null). */
async function upsertFinding(tx: TenantQueryable, orgId: string, finding: RecommendationFinding, now: Date): Promise<string | null> {
  const { rows } = await tx.query(
    `INSERT INTO recommendations (org_id, server_id, kind, subject, title, steps, change, evidence, prediction, confidence, first_seen_at, refreshed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
     ON CONFLICT (org_id, server_id, kind, subject) WHERE status <> 'applied' DO UPDATE SET
       title = EXCLUDED.title, steps = EXCLUDED.steps, change = EXCLUDED.change, evidence = EXCLUDED.evidence,
       prediction = EXCLUDED.prediction, confidence = EXCLUDED.confidence, refreshed_at = EXCLUDED.refreshed_at, resolved_at = NULL
     RETURNING id, (xmax = 0) AS inserted`,
    [
      orgId,
      finding.serverId,
      finding.kind,
      finding.subject,
      finding.title,
      finding.steps,
      finding.change === null ? null : JSON.stringify(finding.change),
      JSON.stringify(finding.evidence),
      JSON.stringify(finding.prediction),
      JSON.stringify(finding.confidence),
      now,
    ],
  );
  return rows[0].inserted ? (rows[0].id as string) : null;
}
