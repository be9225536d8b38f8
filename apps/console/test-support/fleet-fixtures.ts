// A small fleet with one server for each thing the fleet page filters on: status, tags, OS,
// kernel, agent version, reported capabilities, firing alerts by severity, policy state and
// read latency histograms, plus `extra` plain servers for paging.
import { capabilityCatalogue } from "@spindle/domain";
import type { Pool } from "@/lib/db";

export const FLEET_NOW = new Date("2026-11-28T12:00:00Z");
const hash = (c: string) => c.repeat(64);

export interface FleetServerSpec {
  hostname: string;
  lastSeenSecondsAgo: number | null;
  tags?: string[];
  os?: string;
  osVersion?: string;
  kernel?: string;
  agentVersion?: string;
  /** Capabilities the agent reported missing; undefined: never reported. */
  missing?: string[];
  firing?: ("critical" | "warning" | "info")[];
  policy?: "applied" | "failed" | "pending" | "invalid";
  /** Read latency histogram counts by bucket index over the last hour (the worker's summary). */
  reads?: Record<number, number>;
  revoked?: boolean;
}

/** Inserts the servers (with agents) and everything the specs name; returns hostname → id. */
export async function seedFleet(pool: Pool, orgId: string, specs: FleetServerSpec[], now = FLEET_NOW): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const rules = new Map<string, string>();
  for (const severity of ["critical", "warning", "info"]) {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
       VALUES ($1, $2, 'disk.read_iops', 'avg', '>', 50, 300, 'organization', $3) RETURNING id::text`,
      [orgId, `${severity} rule`, severity],
    );
    rules.set(severity, rows[0]!.id);
  }
  for (const spec of specs) {
    const lastSeen = spec.lastSeenSecondsAgo === null ? null : new Date(now.getTime() - spec.lastSeenSecondsAgo * 1000);
    const {
      rows: [server],
    } = await pool.query<{ id: string }>(
      `INSERT INTO servers (org_id, machine_id, hostname, os, os_version, kernel, arch, agent_version, tags, created_at, last_seen_at)
       VALUES ($1, $2, $2, $3, $4, $5, 'amd64', $6, $7, $8, $9) RETURNING id::text`,
      [
        orgId,
        spec.hostname,
        spec.os ?? "linux",
        spec.osVersion ?? "Debian GNU/Linux 12 (bookworm)",
        spec.kernel ?? "6.1.0-18-amd64",
        spec.agentVersion ?? "0.1.0",
        spec.tags ?? [],
        new Date(now.getTime() - 86_400_000),
        lastSeen,
      ],
    );
    const id = server!.id;
    ids.set(spec.hostname, id);
    const reported =
      spec.missing === undefined ? [] : capabilityCatalogue.map((c) => c.name).filter((name) => !spec.missing!.includes(name));
    await pool.query(
      `INSERT INTO agents (org_id, server_id, credential_hash, telemetry_capabilities, telemetry_capabilities_at, revoked_at)
       VALUES ($1, $2, sha256($3::bytea), $4, $5, $6)`,
      [orgId, id, spec.hostname, reported, spec.missing === undefined ? null : now, spec.revoked ? now : null],
    );
    for (const severity of spec.firing ?? []) {
      await pool.query(
        `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, value, updated_at)
         VALUES ($1, $2, $3, 'sda', 'firing', $4, 99, $4)`,
        [orgId, rules.get(severity), id, now],
      );
    }
    const policy = spec.policy ?? "pending";
    await pool.query(
      `INSERT INTO server_effective_policies (org_id, server_id, document, hash, error, error_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      policy === "invalid"
        ? [orgId, id, null, null, "readCache.budget: too large", now]
        : [orgId, id, '{"schemaVersion": 1}', hash("e"), null, null],
    );
    if (policy === "applied" || policy === "failed") {
      await pool.query(
        `INSERT INTO server_policy_status (org_id, server_id, desired_version_hash, reported_hash, applied_hash, status, message, reported_at, applied_at)
         VALUES ($1, $2, $3, $3, $4, $5, $6, $7, $8)`,
        [
          orgId,
          id,
          hash("e"),
          policy === "applied" ? hash("e") : null,
          policy,
          policy === "failed" ? "refused" : "",
          now,
          policy === "applied" ? now : null,
        ],
      );
    }
    if (spec.reads) {
      // The hour's merged histogram, as the worker's read_latency_summary job writes it.
      const buckets = Array.from({ length: 28 }, (_, i) => spec.reads![i] ?? 0);
      await pool.query(
        `INSERT INTO server_read_latency (org_id, server_id, window_start, window_end, reads, buckets, computed_at) VALUES ($1, $2, $3, $4, $5, $6, $4)`,
        [
          orgId,
          id,
          new Date(now.getTime() - 3_600_000 - 60_000),
          new Date(now.getTime() - 60_000),
          buckets.reduce((a, b) => a + b, 0),
          buckets,
        ],
      );
    }
  }
  return ids;
}
