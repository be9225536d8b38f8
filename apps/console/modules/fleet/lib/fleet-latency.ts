// The fleet's headline latency: p99 of storage reads over the last hour, from the eBPF latency
// histograms. The worker merges each server's 1-minute histograms of the hour into one row every
// 5 minutes (server_read_latency, job read_latency_summary): reading an hour of 1-minute buckets
// for a whole fleet on every page view cost 240,000 rows per 1,000 servers (docs/benchmarks.md,
// "Fleet page"). A group's histograms are merged by adding counts (every device of every server),
// then the percentile's bucket is read: exact to the bucket and never an average of percentiles.
// A descriptive figure: it says how slow reads were, not what anything saved.
import { describeLatencyPercentile, latencyPercentile, mergeLatencyBuckets } from "@spindle/domain";
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
     FROM server_read_latency WHERE org_id = $1 AND server_id = ANY($2::uuid[])`, [orgId, serverIds]);
  return new Map(rows.map((row) => [row.serverId, row]));
}

const time = (date: Date) => date.toISOString().slice(11, 16);

/**
 * p99 of the reads of these servers' histograms. Not measured when none of them has a current
 * summary with a read (no eBPF, idle disks, no telemetry, or the worker not running): never 0.
 */
export function p99ReadLatency(histograms: Map<string, ReadHistogram>, serverIds: readonly string[], now: Date): LatencyFigure {
  const summaries = serverIds.map((id) => histograms.get(id)).filter((h): h is ReadHistogram => h !== undefined);
  const current = summaries.filter((h) => now.getTime() - h.windowEnd.getTime() <= SUMMARY_STALE_AFTER_MS);
  if (current.length === 0) {
    return {
      status: "not-measured",
      reason: summaries.length > 0
        ? `the latest read latency summary ends at ${summaries[0]!.windowEnd.toISOString()}: is the worker running? (it refreshes them every 5 minutes)`
        : "no read was timed in the last hour: the eBPF latency histograms (ebpf.block_latency) are missing, the disks were idle, or the worker has not summarised them yet",
    };
  }
  const merged = mergeLatencyBuckets(current.map((h) => h.buckets));
  const percentile = latencyPercentile(merged, 0.99);
  if (!percentile) return { status: "not-measured", reason: "the histograms held no read in the last hour" };
  const reads = current.reduce((sum, h) => sum + h.reads, 0);
  const servers = current.length === 1 ? "1 server" : `${current.length} servers`;
  const end = new Date(Math.max(...current.map((h) => h.windowEnd.getTime())));
  const start = new Date(Math.min(...current.map((h) => h.windowStart.getTime())));
  return {
    status: "measured",
    lowerSeconds: percentile.lowerSeconds,
    upperSeconds: percentile.upperSeconds,
    reads,
    basis: `descriptive: p99 ${describeLatencyPercentile(percentile)}, from the eBPF read latency histograms of ${servers}, ${time(start)}–${time(end)} UTC ` +
      `(${Math.round(reads).toLocaleString("en")} reads, merged; refreshed every 5 minutes)`,
  };
}
