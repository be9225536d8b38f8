import { z } from "zod";
import { chartWindowQuerySchema } from "@/modules/metrics/lib/chart-window";

/**
 * What the comparison can draw: one server-wide figure per server. Rates add over the server's
 * devices; latency is weighted by each device's I/Os (as a server's own average would be);
 * utilisation is its busiest device's, since devices do not add up to a busier server.
 */
export const comparisonMetrics = {
  readIops: { label: "Read IOPS (all devices)", unit: "ops/s" },
  writeIops: { label: "Write IOPS (all devices)", unit: "ops/s" },
  readThroughput: { label: "Read throughput (all devices)", unit: "MB/s" },
  writeThroughput: { label: "Write throughput (all devices)", unit: "MB/s" },
  readLatency: { label: "Average read latency (I/O-weighted over devices)", unit: "ms" },
  writeLatency: { label: "Average write latency (I/O-weighted over devices)", unit: "ms" },
  queueDepth: { label: "Average queue depth (all devices)", unit: "I/Os" },
  utilisation: { label: "Utilisation of the busiest device", unit: "%" },
  memoryAvailable: { label: "Available memory", unit: "bytes" },
} as const;
export type ComparisonMetric = keyof typeof comparisonMetrics;
export const comparisonMetricNames = Object.keys(comparisonMetrics) as [ComparisonMetric, ...ComparisonMetric[]];

export const COMPARE_MIN_SERVERS = 2;
export const COMPARE_MAX_SERVERS = 4;

const serverList = z
  .string({ error: () => `servers is a comma-separated list of ${COMPARE_MIN_SERVERS} to ${COMPARE_MAX_SERVERS} server ids` })
  .transform((value) => [
    ...new Set(
      value
        .split(",")
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  ])
  .refine(
    (ids) => ids.length >= COMPARE_MIN_SERVERS && ids.length <= COMPARE_MAX_SERVERS,
    `servers is a comma-separated list of ${COMPARE_MIN_SERVERS} to ${COMPARE_MAX_SERVERS} different server ids`,
  );

/** GET /api/compare and the comparison page's URL. */
export const comparisonQuerySchema = z
  .object({
    servers: serverList,
    metric: z.enum(comparisonMetricNames, { error: () => `metric is one of: ${comparisonMetricNames.join(", ")}` }).default("readIops"),
  })
  .and(chartWindowQuerySchema);

export interface ComparedServer {
  id: string;
  hostname: string;
  /** Unix seconds; each server at its own sample times, null where nothing was measured (a gap). */
  time: number[];
  values: (number | null)[];
}

export interface Comparison {
  metric: ComparisonMetric;
  label: string;
  unit: string;
  range: string;
  from: string;
  to: string;
  bucketSeconds: number | null;
  servers: ComparedServer[];
}
