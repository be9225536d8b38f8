import type { ServerSummary } from "./server";
import type { FleetPolicyState } from "./fleet-query";

/** A descriptive latency figure: the bucket of a merged histogram, or why there is none. */
export type LatencyFigure =
  | {
      status: "measured";
      /** The percentile's bucket edges in seconds: the value lies in (lower, upper]; upper null for the open last bucket. */
      lowerSeconds: number;
      upperSeconds: number | null;
      /** Reads the histograms held. */
      reads: number;
      basis: string;
    }
  | { status: "not-measured"; reason: string };

/** A caused figure (against a control, with an interval), or why there is none yet. */
export type CausedFigure =
  | { status: "measured"; label: string; value: number; low: number; high: number; unit: string; basis: string }
  | { status: "not-measured"; reason: string };

/** One server as the fleet table shows it. */
export interface FleetRow extends ServerSummary {
  osName: string;
  tags: string[];
  /** Firing alerts of enabled rules, and the worst severity among them (null: none). */
  firing: number;
  firingSeverity: "critical" | "warning" | "info" | null;
  policyState: FleetPolicyState;
  revoked: boolean;
  /** Capabilities of the catalogue the agent reported missing; null when it has not reported any yet. */
  missingCapabilities: string[] | null;
  /** p99 read latency over the last hour (rows of the page only). */
  p99ReadLatency: LatencyFigure;
}

/** One tag's group (tag null: servers without a tag), over the servers the filters match. */
export interface FleetGroup {
  tag: string | null;
  servers: number;
  online: number;
  /** Servers with at least one firing alert. */
  firing: number;
  p99ReadLatency: LatencyFigure;
  causedReadCacheGains: CausedFigure;
}

export interface FleetPage {
  servers: FleetRow[];
  /** Servers the filters match (all pages). */
  total: number;
  page: number;
  pageSize: number;
  /** Only with group=tag: one entry per tag among the matching servers. */
  groups: FleetGroup[] | null;
  /** The fleet's size without filters, so "no match" and "no servers" read differently. */
  fleetSize: number;
  /** When the statuses and the latency window were computed. */
  at: string;
}

/** The values the filters offer, from the whole fleet, each with its number of servers. */
export interface FleetFacets {
  tags: { value: string; servers: number }[];
  os: { value: string; servers: number }[];
  kernels: { value: string; servers: number }[];
  agentVersions: { value: string; servers: number }[];
}
