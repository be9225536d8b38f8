import { z } from "zod";
import { measured, series, unixSeconds } from "@/lib/openapi/schemas";
import type { FleetGains, ServerGains } from "./gains";
import type { ServerVerdict } from "./verdict";

const rangeView = z.object({
  range: z.enum(["1h", "24h", "7d", "30d", "custom"]),
  from: z.string(),
  to: z.string(),
  resolution: z.enum(["raw", "1m", "1h"]),
  bucketSeconds: z.number().nullable(),
});

const interval = z.object({ low: z.number(), high: z.number(), confidence: z.number() });

const ledgerLine = z.object({
  key: z.enum([
    "bytesFromMemory",
    "storageIosSaved",
    "storageTimeSaved",
    "ownPageHits",
    "ownStorageReads",
    "fragmentsPrevented",
    "filesDefragmented",
    "preallocatedBytes",
  ]),
  feature: z.enum(["read-cache", "write-optimisation"]),
  kind: z.enum(["caused", "lower-bound", "description", "cost", "counter"]).meta({
    description:
      "caused: against a control group, with an interval; lower-bound: counted directly; description: what happened, not a saving; cost: what the feature spent; counter: the feature's own count",
  }),
  label: z.string(),
  unit: z.string(),
  effect: measured(z.number()),
  interval: interval.optional().meta({ description: "The 95 % interval of a caused figure, in its unit" }),
  note: z.string().optional(),
  notMeasuredOn: z.array(z.object({ server: z.string(), reason: z.string() })).optional(),
});

const causedEstimate = z.object({
  savedPages: z.number(),
  interval: z
    .discriminatedUnion("method", [
      z.object({
        method: z.literal("hash-buckets"),
        lowPages: z.number(),
        highPages: z.number(),
        confidence: z.number(),
        buckets: z.number().meta({ description: "Hash buckets of page groups with accesses: the random groups the variance comes from" }),
        degreesOfFreedom: z.number(),
      }),
      z.object({
        method: z.literal("block-bootstrap"),
        lowPages: z.number(),
        highPages: z.number(),
        confidence: z.number(),
        iterations: z.number(),
        blockLength: z.number(),
        seed: z.number(),
        omitsDrawVariance: z
          .literal(true)
          .meta({ description: "The agent sent no counts per hash bucket: the interval sees time only, not the control draw" }),
      }),
    ])
    .meta({
      description:
        "hash-buckets: random-groups variance over the agent's 16 hash buckets of page groups, Student-t (sees the control draw); block-bootstrap: over time only, for agents that send no buckets",
    }),
  controlMissRatio: z.number(),
  managedMissRatio: z.number(),
  managedAccessedPages: z.number(),
  controlAccessedPages: z.number(),
  controlShare: z.number(),
  expectedControlShare: z.number(),
  units: z.number(),
  effectiveUnits: z.number(),
});

const causedReads = z.object({
  savedIos: z
    .number()
    .meta({ description: "Storage read I/Os the read cache caused to be saved, against its control group; negative when it caused more" }),
  interval,
  capped: z
    .boolean()
    .meta({ description: "The estimate or an end of its interval was more than the devices could have served, and was capped there" }),
  spareIos: z.number(),
  meanReadBytes: z.number(),
  estimate: causedEstimate,
});

const serverSummary = z.object({
  serverId: z.uuid(),
  hostname: z.string(),
  reads: measured(
    z.object({
      memoryBytes: z.number(),
      storageBytes: z.number(),
      memoryOperations: z.number(),
      storageOperations: z.number(),
      memoryShare: z.number(),
      storageShare: z.number(),
    }),
  ),
  storageReadLatencySeconds: measured(z.number()),
  memoryReadLatencySeconds: measured(z.number()),
  causedReads: measured(causedReads),
  causedTime: measured(
    z.object({ seconds: z.number(), interval, storageReadLatencySeconds: z.number(), memoryReadLatencySeconds: z.number() }),
  ),
  ownPageHits: measured(z.number()).meta({
    description: "First hits on pages the read cache itself brought back, as storage reads: a lower bound of what it caused",
  }),
  fragments: measured(
    z.object({
      prevented: z.number(),
      expectedExtents: z.number(),
      actualExtents: z.number(),
      managedExtentsPerGib: z.number(),
      unmanagedExtentsPerGib: z.number(),
    }),
  ),
  ledger: z.array(ledgerLine),
});

export const fleetGainsSchema = z.object({ range: rangeView, servers: z.array(serverSummary), ledger: z.array(ledgerLine) });

export const serverGainsSchema = serverSummary.extend({
  range: rangeView,
  devices: z.array(
    z.object({
      device: z.string(),
      readOps: z.number().nullable(),
      readBytes: z.number().nullable(),
      meanReadBytes: measured(z.number()),
      meanReadLatencySeconds: measured(z.number()),
    }),
  ),
  series: z.object({ time: unixSeconds, memoryBytesPerSecond: series, storageBytesPerSecond: series }),
});

const verdictMetric = z.object({
  key: z.enum(["meanReadLatency", "pageCacheMissRatio", "splitIosPerIo", "storageReadsPerAccess"]),
  label: z.string(),
  unit: z.string(),
  source: z.string(),
  denominatorUnit: z.string(),
});
const metricVerdict = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("verdict"),
    metric: verdictMetric,
    stage: z.enum(["provisional", "final"]),
    verdict: z.enum(["better", "worse", "no-measurable-change"]),
    method: z.enum(["previous-days", "concurrent-control", "block-bootstrap"]),
    basis: z.string(),
    scale: z.enum(["relative", "absolute"]),
    after: z.number(),
    expected: z.number(),
    change: z
      .number()
      .meta({ description: "After against expected: a fraction on the relative scale (−0.18 = −18 %), a difference on the absolute one" }),
    interval: z.object({ low: z.number(), high: z.number(), confidence: z.number() }),
    pValue: z.number(),
    adjustedPValue: z.number().meta({ description: "Holm-adjusted over metricsCompared metrics" }),
    metricsCompared: z.number().int(),
    alpha: z.number(),
  }),
  z.object({ status: z.literal("not-enough-data"), metric: verdictMetric, reason: z.string() }),
]);
const span = z.object({ from: z.string(), to: z.string() });

export const serverVerdictSchema = z.object({
  serverId: z.uuid(),
  hostname: z.string(),
  change: z.discriminatedUnion("status", [
    z.object({ status: z.literal("known"), appliedAt: z.string(), cause: z.string() }),
    z.object({ status: z.literal("unknown"), reason: z.string() }),
  ]),
  look: z
    .discriminatedUnion("status", [
      z.object({ status: z.literal("too-early"), reason: z.string(), firstAt: z.string(), finalAt: z.string() }),
      z.object({
        status: z.literal("look"),
        stage: z.enum(["provisional", "final"]),
        afterMinutes: z.number(),
        horizonMinutes: z.number(),
        alpha: z.number(),
        finalAt: z.string(),
        after: span,
        before: span.extend({ description: z.string() }),
        controlServers: z.number().int(),
      }),
    ])
    .nullable()
    .meta({
      description:
        "When the change is read: too early, a provisional checkpoint or the final verdict; null when the change moment is unknown",
    }),
  metrics: z.array(metricVerdict),
  readCacheCaused: measured(causedReads)
    .nullable()
    .meta({ description: "The read cache's caused storage reads over the after window, against its control group; null without a look" }),
});

export const policyVersionVerdictsSchema = z.object({
  policyId: z.string(),
  version: z.number().int(),
  servers: z.array(serverVerdictSchema),
});

// The answers' types are written for the code and these schemas for the OpenAPI document: these
// lines stop the build when the two drift apart (the contract test would only see it at run time).
type Same<A, B extends A> = [A, B];
export type GainsSchemasMatchTypes = [
  Same<ServerGains, z.infer<typeof serverGainsSchema>>,
  Same<z.infer<typeof serverGainsSchema>, ServerGains>,
  Same<FleetGains, z.infer<typeof fleetGainsSchema>>,
  Same<z.infer<typeof fleetGainsSchema>, FleetGains>,
  Same<ServerVerdict, z.infer<typeof serverVerdictSchema>>,
  Same<z.infer<typeof serverVerdictSchema>, ServerVerdict>,
];
