// The fleet's headline latency: p99 of storage reads over the last hour, read from the eBPF
// latency histograms (disk_latency, 1-minute buckets). Histograms are merged by adding counts
// (every device of every server in a group), then the percentile's bucket is read: exact to
// the bucket and never an average of percentiles. A descriptive figure: it says how slow reads
// were, not what anything saved.
import { describeLatencyPercentile, latencyBucketCount, latencyPercentile, mergeLatencyBuckets } from "@spindle/domain";
import type { OrgSql } from "@/lib/db";
import type { LatencyFigure } from "../types/fleet";

export const LATENCY_WINDOW_SECONDS = 3600;

const bucketSums = Array.from({ length: latencyBucketCount }, (_, i) => `sum(bucket_${String(i).padStart(2, "0")})::float8`).join(", ");

/** $1 org, $2 server ids, $3 window start (exclusive), $4 window end: each server's merged read histogram. */
export const serverReadHistogramsSql = `SELECT server_id::text AS "serverId", sum(operations)::float8 AS reads, ARRAY[${bucketSums}] AS buckets
FROM disk_latency_1m
WHERE org_id = $1 AND server_id = ANY($2::uuid[]) AND operation = 'read' AND bucket > $3 AND bucket <= $4
GROUP BY server_id`;

export type ReadHistogram = { serverId: string; reads: number; buckets: number[] };

/** Each server's read histogram over the hour before `now`; servers without one are absent. */
export async function readHistograms(sql: OrgSql, orgId: string, serverIds: string[], now: Date): Promise<Map<string, ReadHistogram>> {
  if (serverIds.length === 0) return new Map();
  const from = new Date(now.getTime() - LATENCY_WINDOW_SECONDS * 1000);
  const { rows } = await sql.query<ReadHistogram>(serverReadHistogramsSql, [orgId, serverIds, from, now]);
  return new Map(rows.map((row) => [row.serverId, row]));
}

/**
 * p99 of the reads of these servers' histograms. Not measured when none of them has a
 * histogram with a read in the window (no eBPF, idle, or no telemetry): never 0.
 */
export function p99ReadLatency(histograms: Map<string, ReadHistogram>, serverIds: readonly string[]): LatencyFigure {
  const found = serverIds.map((id) => histograms.get(id)).filter((h): h is ReadHistogram => h !== undefined && h.reads > 0);
  if (found.length === 0) {
    return { status: "not-measured", reason: "no read was timed in the last hour: the eBPF latency histograms (ebpf.block_latency) are missing or the disks were idle" };
  }
  const merged = mergeLatencyBuckets(found.map((h) => h.buckets));
  const percentile = latencyPercentile(merged, 0.99);
  const reads = found.reduce((sum, h) => sum + h.reads, 0);
  if (!percentile) return { status: "not-measured", reason: "the histograms held no read in the last hour" };
  const servers = found.length === 1 ? "1 server" : `${found.length} servers`;
  return {
    status: "measured",
    lowerSeconds: percentile.lowerSeconds,
    upperSeconds: percentile.upperSeconds,
    reads,
    basis: `descriptive: p99 ${describeLatencyPercentile(percentile)}, from the eBPF read latency histograms of ${servers} over the last hour ` +
      `(${Math.round(reads).toLocaleString("en")} reads, disk_latency 1-minute buckets, merged)`,
  };
}
