// The fleet's headline latency: p99 of storage reads over the last hour, from the eBPF latency
// histograms. The worker merges each server's 1-minute histograms of the hour into one row every
// 5 minutes (server_read_latency, job read_latency_summary): reading an hour of 1-minute buckets
// for a whole fleet on every page view cost 240,000 rows per 1,000 servers (docs/benchmarks.md,
// "Fleet page"). A group's histograms are merged by adding counts (every device of every server,
// in the database: fleet-sql.ts), then the percentile's bucket is read: exact to the bucket and
// never an average of percentiles.
// A descriptive figure: it says how slow reads were, not what anything saved.
import { describeLatencyPercentile, latencyPercentile } from "@spindle/domain";
import type { OrgSql } from "@/lib/db";
import type { LatencyFigure } from "../types/fleet";

/** The worker refreshes summaries every 5 minutes; older than this, it has stopped, and the figure is not shown as current. */
export const SUMMARY_STALE_AFTER_MS = 15 * 60_000;

export type ReadHistogram = { serverId: string; reads: number; buckets: number[]; windowStart: Date; windowEnd: Date };

/** The summaries of these servers; servers without a timed read in the hour have none. */
export async function readHistograms(sql: OrgSql, orgId: string, serverIds: string[]): Promise<Map<string, ReadHistogram>> {
  if (serverIds.length === 0) return new Map();
  const { rows } = await sql.query<ReadHistogram>(
    `SELECT server_id::text AS "serverId", reads, buckets, window_start AS "windowStart", window_end AS "windowEnd"
     FROM server_read_latency WHERE org_id = $1 AND server_id = ANY($2::uuid[])`,
    [orgId, serverIds],
  );
  return new Map(rows.map((row) => [row.serverId, row]));
}

const time = (date: Date) => date.toISOString().slice(11, 16);

/** Servers' read histograms added up (the database adds a group's; a row's is its server's own). */
export interface MergedReadHistogram {
  /** Servers with a current summary in the merge. */
  servers: number;
  reads: number;
  buckets: number[];
  windowStart: Date;
  windowEnd: Date;
}

/** Summaries left out as no longer current: how many, and the newest one's end. */
export interface StaleSummaries {
  servers: number;
  end: Date | null;
}

/**
 * p99 of the reads of a merged histogram. Not measured when no server has a current summary
 * with a read (no eBPF, idle disks, no telemetry, or the worker not running): never 0.
 */
export function p99ReadLatency(merged: MergedReadHistogram | null, stale: StaleSummaries): LatencyFigure {
  if (!merged || merged.servers === 0 || !(merged.reads > 0)) {
    return {
      status: "not-measured",
      reason:
        stale.servers > 0 && stale.end
          ? `the latest read latency summary ends at ${stale.end.toISOString()}: is the worker running? (it refreshes them every 5 minutes)`
          : "no read was timed in the last hour: the eBPF latency histograms (ebpf.block_latency) are missing, the disks were idle, or the worker has not summarised them yet",
    };
  }
  const percentile = latencyPercentile(merged.buckets, 0.99);
  if (!percentile) return { status: "not-measured", reason: "the histograms held no read in the last hour" };
  const servers = merged.servers === 1 ? "1 server" : `${merged.servers} servers`;
  return {
    status: "measured",
    lowerSeconds: percentile.lowerSeconds,
    upperSeconds: percentile.upperSeconds,
    reads: merged.reads,
    basis:
      `descriptive: p99 ${describeLatencyPercentile(percentile)}, from the eBPF read latency histograms of ${servers}, ` +
      `${time(merged.windowStart)}–${time(merged.windowEnd)} UTC (${Math.round(merged.reads).toLocaleString("en")} reads, merged; refreshed every 5 minutes)`,
  };
}

/** One server's figure from its summary (if any), current when its window ended at most SUMMARY_STALE_AFTER_MS before `now`. */
export function serverP99ReadLatency(summary: ReadHistogram | undefined, now: Date): LatencyFigure {
  if (!summary) return p99ReadLatency(null, { servers: 0, end: null });
  if (now.getTime() - summary.windowEnd.getTime() > SUMMARY_STALE_AFTER_MS)
    return p99ReadLatency(null, { servers: 1, end: summary.windowEnd });
  return p99ReadLatency(
    { servers: 1, reads: summary.reads, buckets: summary.buckets, windowStart: summary.windowStart, windowEnd: summary.windowEnd },
    { servers: 0, end: null },
  );
}
