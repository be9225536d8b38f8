// Start an agent upgrade: the servers of the scope that can take the version are planned into
// waves (@spindle/domain planUpgradeWaves, the one wave planner), the canary is offered at once
// and the other waves wait for the worker (apps/worker/src/upgrades); the others are listed as
// skipped with the reason. One upgrade at a time per organisation.
import { randomUUID } from "node:crypto";
import { planUpgradeWaves, upgradeDecision, type AgentUpgradeRequest } from "@spindle/domain";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { forbidden, ProblemError } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import type { OrgContext } from "@/modules/auth/types/context";
import type { RolloutSummary } from "../types/agent-upgrades";
import { upgradeCapability } from "./capability";
import { listRollouts } from "./queries";
import { describeScope } from "./scope-text";
import { listReleases, servesPlatform } from "./releases";

export type UpgradeActor = Pick<OrgContext, "orgId" | "userId" | "role">;

interface Candidate {
  id: string;
  hostname: string;
  tags: string[];
  reason: string | null; // why it is skipped; null: offered
}

export async function startUpgrade(db: Db, actor: UpgradeActor, request: AgentUpgradeRequest): Promise<RolloutSummary> {
  if (!can(actor.role, { agentUpgrade: ["start"] })) {
    throw forbidden(`Your role (${actor.role}) can follow agent upgrades but not start them; ask an owner or admin.`);
  }
  try {
    return await inOrgSql(db, actor.orgId, async (sql) => {
      const release = (await listReleases(sql)).find((r) => r.version === request.targetVersion);
      if (!release) {
        throw new ProblemError(
          400,
          "Version not served",
          `No gateway serves agent ${request.targetVersion}; pick one of the releases listed, or add it to the gateways' SPINDLE_AGENT_DIST_DIR.`,
        );
      }
      const candidates = await candidatesOf(sql, actor.orgId, request, (os, arch) => servesPlatform(release, os, arch));
      const offered = candidates.filter((c) => c.reason === null);
      if (offered.length === 0) {
        const reasons = candidates
          .slice(0, 5)
          .map((c) => `${c.hostname}: ${c.reason}`)
          .join("; ");
        throw new ProblemError(
          422,
          "No server to upgrade",
          candidates.length === 0
            ? `No server matches ${describeScope(request.scope)}.`
            : `None of the servers can take ${request.targetVersion} now (${reasons}${candidates.length > 5 ? "; …" : ""}).`,
        );
      }
      const id = randomUUID();
      const waves = planUpgradeWaves(offered, request.plan, id);
      await sql.query(
        `INSERT INTO agent_upgrade_rollouts (id, org_id, target_version, scope, plan, wave_count, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, actor.orgId, request.targetVersion, JSON.stringify(request.scope), JSON.stringify(request.plan), waves.length, actor.userId],
      );
      const byId = new Map(candidates.map((c) => [c.id, c]));
      for (const wave of waves) {
        await sql.query(
          `INSERT INTO agent_upgrades (org_id, server_id, rollout_id, wave, target_version, from_version, state, offered_at)
           SELECT $1, s.id, $2, $3, $4, s.agent_version, $5, $6 FROM servers s WHERE s.org_id = $1 AND s.id = ANY($7::uuid[])`,
          [
            actor.orgId,
            id,
            wave.index,
            request.targetVersion,
            wave.index === 0 ? "offered" : "waiting",
            wave.index === 0 ? new Date() : null,
            wave.serverIds,
          ],
        );
      }
      for (const skipped of candidates.filter((c) => c.reason !== null)) {
        await sql.query(
          `INSERT INTO agent_upgrades (org_id, server_id, rollout_id, target_version, from_version, state, message, finished_at)
           SELECT $1, s.id, $2, $3, s.agent_version, 'skipped', $4, now() FROM servers s WHERE s.org_id = $1 AND s.id = $5`,
          [actor.orgId, id, request.targetVersion, skipped.reason, skipped.id],
        );
      }
      await sql.query(
        "INSERT INTO audit_log (org_id, actor_id, action, target, details) VALUES ($1, $2, 'agent_upgrade.started', $3, $4)",
        [
          actor.orgId,
          actor.userId,
          id,
          JSON.stringify({
            version: request.targetVersion,
            scope: describeScope(request.scope),
            waves: waves.map((w) => w.serverIds.length),
            skipped: candidates.length - offered.length,
            canary: waves[0]!.serverIds.map((s) => byId.get(s)?.hostname),
          }),
        ],
      );
      return (await listRollouts(sql, actor.orgId, 1))[0]!;
    });
  } catch (error) {
    if (isUniqueViolation(error, "agent_upgrade_rollouts_one_active")) {
      throw new ProblemError(
        409,
        "An upgrade is in progress",
        "This organisation already has an agent upgrade running or paused; finish or cancel it first.",
      );
    }
    throw error;
  }
}

/** The servers of the scope, each offered or skipped with the reason. */
async function candidatesOf(
  sql: OrgSql,
  orgId: string,
  request: AgentUpgradeRequest,
  served: (os: string, arch: string) => boolean,
): Promise<Candidate[]> {
  const scope = request.scope;
  const { rows } = await sql.query(
    `SELECT s.id, s.hostname, s.tags, s.os, s.arch, s.agent_version, a.capabilities, a.revoked_at, p.version AS pinned,
            EXISTS (SELECT 1 FROM agent_upgrades l WHERE l.org_id = s.org_id AND l.server_id = s.id AND l.state IN ('offered', 'downloading', 'installing')) AS busy
     FROM servers s
     LEFT JOIN agents a ON a.org_id = s.org_id AND a.server_id = s.id
     LEFT JOIN agent_version_pins p ON p.org_id = s.org_id AND p.server_id = s.id
     WHERE s.org_id = $1 AND ($2::text IS NULL OR $2 = ANY(s.tags)) AND ($3::uuid[] IS NULL OR s.id = ANY($3::uuid[]))
     ORDER BY s.hostname, s.id`,
    [orgId, scope.kind === "tag" ? scope.tag : null, scope.kind === "servers" ? scope.serverIds : null],
  );
  if (scope.kind === "servers" && rows.length !== new Set(scope.serverIds).size) {
    throw new ProblemError(404, "Not found", "One of the chosen servers does not exist in this organisation.");
  }
  return rows.map((row) => {
    const decision = upgradeDecision(
      {
        id: row.id,
        tags: row.tags,
        agentVersion: row.agent_version,
        upgrade: upgradeCapability(row.capabilities),
        pinnedVersion: row.pinned ?? null,
      },
      request.targetVersion,
    );
    let reason = decision.offer ? null : decision.reason;
    if (reason === null && (row.revoked_at !== null || row.capabilities === null)) reason = "its agent's access is revoked";
    if (reason === null && row.busy) reason = "an upgrade of this server is in progress";
    if (reason === null && !served(row.os, row.arch)) reason = `no gateway serves ${request.targetVersion} for ${row.os}/${row.arch}`;
    return { id: row.id, hostname: row.hostname, tags: row.tags, reason };
  });
}

export function isUniqueViolation(error: unknown, constraint: string): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { code?: unknown }).code === "23505" &&
    (error as { constraint?: unknown }).constraint === constraint
  );
}
