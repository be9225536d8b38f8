// The evidence of one server, read for the generators: the newest curves, the read cache's
// enforced budget, spare memory, the page cache's top files, the fragmentation scan, the
// capability report. Every query names the organisation and the server: raw telemetry tables
// have no row-level security (the gateway COPYs into them), so the filter is the wall.
import { parsePolicy, type Policy } from "@spindle/policy";
import type { TenantQueryable } from "@spindle/db";

const dayMs = 86_400_000;
/** How far back the evidence reaches: a week covers a weekly load cycle once. */
export const evidenceWindowMs = 7 * dayMs;

export interface StoredCurve {
  curve: "page_cache" | "read_cache" | "block";
  scope: string;
  sizesBytes: number[];
  hitRatios: number[];
  sampleRate: number;
  sampledAccesses: number;
  windowFrom: Date;
  windowTo: Date;
}

export interface ServerEvidence {
  serverId: string;
  policy: Policy;
  curves: StoredCurve[];
  currentBudgetBytes: number | null;
  availableMemory: { p5Bytes: number; samples: number; from: Date; to: Date } | null;
  topFiles: { path: string; accesses: number; misses: number; intervalSeconds: number; seenAt: Date }[];
  worstFiles: { root: string; path: string; extents: number; sizeBytes: number; seenAt: Date }[];
  roots: { root: string; firstExcessExtents: number; lastExcessExtents: number; from: Date; to: Date; scans: number }[];
  capabilities: { reported: string[]; reportedAt: Date } | null;
  hadPostgresqlStatistics: boolean;
}

/** The effective policy the server runs; the schema's defaults when none was computed or it is invalid. */
function effectivePolicy(document: unknown): Policy {
  const parsed = parsePolicy(document ?? { schemaVersion: 1 });
  if (parsed.ok) return parsed.policy;
  const defaults = parsePolicy({ schemaVersion: 1 });
  if (!defaults.ok) throw new Error("the policy schema's defaults do not parse");
  return defaults.policy;
}

export async function readServerEvidence(tx: TenantQueryable, orgId: string, serverId: string, now: Date): Promise<ServerEvidence> {
  const since = new Date(now.getTime() - evidenceWindowMs);
  const args = [orgId, serverId, since];
  const [policy, curves, budget, memory, topFiles, worstFiles, roots, agent, postgres] = await Promise.all([
    tx.query("SELECT document FROM server_effective_policies WHERE org_id = $1 AND server_id = $2", [orgId, serverId]),
    // The newest curve of each stream within the week.
    tx.query(
      `SELECT DISTINCT ON (curve, scope) curve, scope, sizes_bytes, hit_ratios, sample_rate, sampled_accesses, time, window_seconds
              FROM cache_mrc WHERE org_id = $1 AND server_id = $2 AND time > $3 ORDER BY curve, scope, time DESC`,
      args,
    ),
    tx.query(
      `SELECT budget_bytes FROM read_cache WHERE org_id = $1 AND server_id = $2 AND time > $3 AND budget_bytes IS NOT NULL
              ORDER BY time DESC LIMIT 1`,
      args,
    ),
    tx.query(
      `SELECT percentile_disc(0.05) WITHIN GROUP (ORDER BY available_bytes) AS p5, count(*)::bigint AS samples, min(time) AS first, max(time) AS last
              FROM memory WHERE org_id = $1 AND server_id = $2 AND time > $3`,
      args,
    ),
    tx.query("SELECT path, accesses, misses, interval_seconds, seen_at FROM page_cache_top_files WHERE org_id = $1 AND server_id = $2", [
      orgId,
      serverId,
    ]),
    tx.query("SELECT root, path, extents, size_bytes, seen_at FROM fragmentation_worst_files WHERE org_id = $1 AND server_id = $2", [
      orgId,
      serverId,
    ]),
    tx.query(
      `SELECT root, count(*)::int AS scans, min(time) AS first_at, max(time) AS last_at,
                     (array_agg(excess_extents ORDER BY time))[1] AS first_excess, (array_agg(excess_extents ORDER BY time DESC))[1] AS last_excess
              FROM fragmentation_scans WHERE org_id = $1 AND server_id = $2 AND time > $3 GROUP BY root`,
      args,
    ),
    tx.query(
      "SELECT telemetry_capabilities, telemetry_capabilities_at FROM agents WHERE org_id = $1 AND server_id = $2 AND revoked_at IS NULL",
      [orgId, serverId],
    ),
    tx.query("SELECT EXISTS (SELECT 1 FROM pg_database_stats WHERE org_id = $1 AND server_id = $2) AS had", [orgId, serverId]),
  ]);
  const memoryRow = memory.rows[0];
  const agentRow = agent.rows[0];
  return {
    serverId,
    policy: effectivePolicy(policy.rows[0]?.document),
    curves: curves.rows.map((r) => ({
      curve: r.curve,
      scope: r.scope,
      sizesBytes: (r.sizes_bytes as string[]).map(Number),
      hitRatios: r.hit_ratios as number[],
      sampleRate: r.sample_rate,
      sampledAccesses: Number(r.sampled_accesses),
      windowFrom: new Date((r.time as Date).getTime() - r.window_seconds * 1000),
      windowTo: r.time,
    })),
    currentBudgetBytes: budget.rows[0] ? Number(budget.rows[0].budget_bytes) : null,
    availableMemory:
      memoryRow && Number(memoryRow.samples) > 0
        ? { p5Bytes: Number(memoryRow.p5), samples: Number(memoryRow.samples), from: memoryRow.first, to: memoryRow.last }
        : null,
    topFiles: topFiles.rows.map((r) => ({
      path: r.path,
      accesses: Number(r.accesses),
      misses: Number(r.misses),
      intervalSeconds: r.interval_seconds,
      seenAt: r.seen_at,
    })),
    worstFiles: worstFiles.rows.map((r) => ({
      root: r.root,
      path: r.path,
      extents: Number(r.extents),
      sizeBytes: Number(r.size_bytes),
      seenAt: r.seen_at,
    })),
    roots: roots.rows.map((r) => ({
      root: r.root,
      scans: r.scans,
      from: r.first_at,
      to: r.last_at,
      firstExcessExtents: Number(r.first_excess),
      lastExcessExtents: Number(r.last_excess),
    })),
    capabilities: agentRow?.telemetry_capabilities_at
      ? { reported: agentRow.telemetry_capabilities, reportedAt: agentRow.telemetry_capabilities_at }
      : null,
    hadPostgresqlStatistics: postgres.rows[0]?.had === true,
  };
}
