// Where the marks on the time charts come from. Each source reads one kind of history for the
// servers and window asked, in the caller's transaction (organisation set, row-level security),
// and answers Annotations; the charts only ever see Annotations. A new kind of mark is a new
// source here, or a new kind of row in server_events (the rollouts of issue 23 write
// `policy.rolled_back` there), never a change to a chart.
import type { OrgSql } from "@/lib/db";
import type { Annotation } from "../types/annotation";
import { lookOf } from "./event-kinds";

export interface AnnotationWindow {
  orgId: string;
  serverIds: string[];
  hostnames: Map<string, string>;
  from: Date;
  to: Date;
  /** At most this many, the newest first. */
  limit: number;
}

export interface AnnotationSource {
  name: string;
  read(sql: OrgSql, window: AnnotationWindow): Promise<Annotation[]>;
}

const params = (w: AnnotationWindow) => [w.orgId, w.serverIds, w.from, w.to, w.limit];

/** What the database recorded itself: policies applied or refused, agent starts and versions. */
const serverEvents: AnnotationSource = {
  name: "server_events",
  async read(sql, w) {
    const { rows } = await sql.query<{ id: string; server_id: string; at: Date; kind: string; details: Record<string, unknown> }>(
      `SELECT id::text, server_id::text, at, kind, details FROM server_events
       WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND at >= $3 AND at <= $4
       ORDER BY at DESC LIMIT $5`,
      params(w),
    );
    return rows.map((row) => {
      const look = lookOf(row.kind);
      return {
        id: `event-${row.id}`,
        serverId: row.server_id,
        hostname: w.hostnames.get(row.server_id) ?? "",
        kind: row.kind,
        tone: look.tone,
        at: row.at.toISOString(),
        endAt: null,
        title: look.label,
        detail: look.describe(row.details),
        href: look.href?.(row.details) ?? null,
      };
    });
  },
};

const formatValue = (value: number | null) => (value === null ? "no value" : Number(value.toPrecision(4)).toLocaleString("en"));

/** Alerts changing to firing, and firing alerts resolving (alert_history). */
const alertChanges: AnnotationSource = {
  name: "alert_history",
  async read(sql, w) {
    const { rows } = await sql.query<{
      id: string;
      server_id: string;
      at: Date;
      rule_name: string;
      severity: string;
      component: string;
      from_state: string;
      to_state: string;
      value: number | null;
      threshold: number;
      comparison: string;
    }>(
      `SELECT id::text, server_id::text, at, rule_name, severity, component, from_state, to_state, value, threshold, comparison
       FROM alert_history
       WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND at >= $3 AND at <= $4
         AND (to_state = 'firing' OR (from_state = 'firing' AND to_state = 'ok'))
       ORDER BY at DESC LIMIT $5`,
      params(w),
    );
    return rows.map((row) => {
      const firing = row.to_state === "firing";
      const on = row.component ? ` on ${row.component}` : "";
      return {
        id: `alert-${row.id}`,
        serverId: row.server_id,
        hostname: w.hostnames.get(row.server_id) ?? "",
        kind: firing ? "alert.firing" : "alert.resolved",
        tone: firing ? "alert" : "resolved",
        at: row.at.toISOString(),
        endAt: null,
        title: `${firing ? "Alert firing" : "Alert resolved"}: ${row.rule_name} (${row.severity})`,
        detail: `${row.rule_name}${on}: ${formatValue(row.value)} against ${row.comparison} ${formatValue(row.threshold)}.`,
        href: "/alerts",
      };
    });
  },
};

/** Proof runs while they ran (proof_runs: started → finished, or still running). */
const proofRuns: AnnotationSource = {
  name: "proof_runs",
  async read(sql, w) {
    const { rows } = await sql.query<{
      id: string;
      server_id: string;
      started_at: Date;
      finished_at: Date | null;
      profile: string;
      status: string;
    }>(
      `SELECT id::text, server_id::text, started_at, finished_at, profile, status FROM proof_runs
       WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND started_at IS NOT NULL
         AND started_at <= $4 AND COALESCE(finished_at, $4) >= $3
       ORDER BY started_at DESC LIMIT $5`,
      params(w),
    );
    return rows.map((row) => ({
      id: `proof-${row.id}`,
      serverId: row.server_id,
      hostname: w.hostnames.get(row.server_id) ?? "",
      kind: "proof_run.ran",
      tone: "proof",
      at: row.started_at.toISOString(),
      endAt: row.finished_at?.toISOString() ?? null,
      title: `Proof run: ${row.profile} (${row.status})`,
      detail: `An A/B proof run (${row.profile}) loaded this server's storage from ${row.started_at.toISOString()}${row.finished_at ? ` to ${row.finished_at.toISOString()}` : " and is still running"}: its I/O shows on the charts.`,
      href: `/proof-runs/${row.id}`,
    }));
  },
};

export const annotationSources: readonly AnnotationSource[] = [serverEvents, alertChanges, proofRuns];
