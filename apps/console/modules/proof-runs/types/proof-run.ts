// Proof runs (the customer's A/B runs) as the console stores, requests and draws them. The request
// becomes the agent's proofrun.Request (agent/internal/proofrun/request.go); the report is its
// proofrun.Report (agent/internal/proofrun/report.go). docs/agent-protocol.md, "Proof runs".
import { z } from "zod";

export const runStatuses = ["queued", "running", "cancelling", "cancelled", "succeeded", "failed"] as const;
export type RunStatus = (typeof runStatuses)[number];
export const activeStatuses: readonly RunStatus[] = ["queued", "running", "cancelling"];

const absolutePath = z
  .string()
  .trim()
  .min(1)
  .max(1024)
  .refine((p) => p.startsWith("/") || /^[A-Za-z]:\\/.test(p), "give an absolute directory (e.g. /srv/proof)")
  .refine((p) => !p.split(/[\\/]/).includes(".."), "name the directory itself, without “..”");

const load = z.object({ threads: z.number().int().min(1).max(256), outstanding: z.number().int().min(1).max(256) });

/** What the request form sends. Sizes in MiB and times in seconds / milliseconds, as people think. */
export const startRunInput = z.object({
  profile: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "pick a profile the agent offers"),
  dataPath: absolutePath,
  logPath: absolutePath.optional(),
  sizeLimitMiB: z.number().int().min(1).max(1_048_576),
  timeLimitSeconds: z.number().int().min(10).max(86_400),
  stepSeconds: z.number().min(1).max(3600).default(5),
  latencyLimitMs: z.number().positive().max(60_000).default(100),
  /** The agent adds off/on/on/off blocks until every step's change is known within ± this (or the time limit comes). */
  targetHalfWidthPercent: z.number().min(1, "aim for at least ±1 %").max(100, "at most ±100 %").default(5),
  /** Load steps (threads × outstanding I/Os); empty uses the profile's own. */
  loads: z.array(load).max(32).default([]),
});
export type StartRunInput = z.infer<typeof startRunInput>;

/** The parameters stored and sent to the agent (proofrun.Request without its profile). */
export const agentParameters = z
  .object({
    paths: z.array(z.string()).min(1).max(2),
    sizeLimitBytes: z.number().int().positive(),
    timeLimitSeconds: z.number().positive(),
    stepSeconds: z.number().positive(),
    latencyLimitSeconds: z.number().positive(),
    /** Absent in runs requested before intervals (the agent then used its default, ±5 %). */
    targetHalfWidthPercent: z.number().positive().max(100).optional(),
    ab: z.literal(true),
    directIO: z.literal(false),
    loads: z.array(load).optional(),
  })
  .strict();
export type AgentParameters = z.infer<typeof agentParameters>;

/** A profile as the agent offers it (agents.capabilities.proofRuns.profiles). */
export const offeredProfile = z.object({
  name: z.string(),
  description: z.string(),
  kind: z.string(),
  source: z.string().default(""),
  steps: z.number().int().nonnegative().default(0),
});
export type OfferedProfile = z.infer<typeof offeredProfile>;

const nullableNumber = z.number().nullable();
const side = z.enum(["off", "on"]);

const result = z.object({
  iops: z.number(),
  mbps: z.number(),
  tps: nullableNumber.optional().default(null),
  latencyMeanSeconds: z.number(),
  latencyP95Seconds: z.number(),
  latencyP99Seconds: z.number(),
  operations: z.number(),
  bytes: z.number(),
  passes: z.number(),
});
export type StepResult = z.infer<typeof result>;

/**
 * On against off for one figure with its interval (agent/internal/proofrun/report.go Difference):
 * "measured" when the interval excludes 0, "no-measurable-difference" when it includes 0,
 * "not-measured" (with the reason) when none could be formed: no figure then.
 */
export const difference = z.object({
  status: z.enum(["measured", "no-measurable-difference", "not-measured"]),
  percent: nullableNumber,
  lowPercent: nullableNumber,
  highPercent: nullableNumber,
  pairs: z.number(),
  reason: z.string().optional().default(""),
});
export type Difference = z.infer<typeof difference>;

const change = z.object({ throughput: difference, latencyMean: difference });
export type Change = z.infer<typeof change>;

/** One step in one pass; the warm-up pass is kept but never compared. */
const passResult = z.object({
  pass: z.number(),
  side,
  warmUp: z.boolean().optional().default(false),
  throughput: z.number(),
  mbps: z.number(),
  latencyMeanSeconds: z.number(),
  latencyP95Seconds: z.number(),
  latencyP99Seconds: z.number(),
  operations: z.number(),
});
export type PassResult = z.infer<typeof passResult>;

const readPlacement = z.object({
  measured: z.boolean(),
  basis: z.string(),
  storageReads: nullableNumber,
  memoryReads: nullableNumber,
  storageReadPercent: nullableNumber,
  storageLatencySeconds: nullableNumber,
  memoryLatencySeconds: nullableNumber,
  latencySource: z.string(),
});
export type ReadPlacement = z.infer<typeof readPlacement>;

/** What the read cache caused: the change in the share of reads that went to storage, off against on. */
const causedReads = z.object({
  status: difference.shape.status,
  reason: z.string().optional().default(""),
  storageSharePercentOff: nullableNumber,
  storageSharePercentOn: nullableNumber,
  shareChangePoints: nullableNumber,
  shareChangeLowPoints: nullableNumber,
  shareChangeHighPoints: nullableNumber,
  readsWith: z.number(),
  storageReadsSaved: nullableNumber,
  storageReadsSavedLow: nullableNumber,
  storageReadsSavedHigh: nullableNumber,
  pairs: z.number(),
  basis: z.string(),
});
export type CausedReads = z.infer<typeof causedReads>;

const passReads = z.object({
  pass: z.number(),
  side,
  warmUp: z.boolean().optional().default(false),
  storageReads: z.number(),
  memoryReads: z.number(),
});
export type PassReads = z.infer<typeof passReads>;

const alternation = z.object({
  blocks: z.number(),
  targetHalfWidthPercent: z.number(),
  widestHalfWidthPercent: nullableNumber,
  stopReason: z.string(),
  stop: z.string(),
  confidencePercent: z.number(),
  intervalsInFamily: z.number(),
  method: z.string(),
});
export type Alternation = z.infer<typeof alternation>;

/**
 * The agent's report; fields the console does not draw pass through unchecked. Reports from
 * agents before intervals lack change, passes and alternation: the console then states no change.
 */
export const proofRunReport = z.object({
  profile: z.string(),
  description: z.string(),
  startedAt: z.string(),
  endedAt: z.string(),
  complete: z.boolean(),
  stopped: z.string().optional(),
  ab: z.boolean(),
  passOrder: z.array(z.string()),
  warmUpPasses: z.number().optional().default(0),
  alternation: alternation.nullable().optional().default(null),
  timeLimitSeconds: z.number().optional(),
  throughput: z.enum(["iops", "tps"]),
  latencyLimitSeconds: z.number(),
  stepSeconds: z.number(),
  device: z.object({ path: z.string(), name: z.string(), fileSystem: z.string() }).passthrough(),
  steps: z.array(
    z.object({
      index: z.number(),
      workload: z.string(),
      label: z.string(),
      off: result.nullable(),
      on: result.nullable(),
      passes: z.array(passResult).nullable().optional().default([]),
      change: change.nullable().optional().default(null),
    }),
  ),
  overall: change.nullable().optional().default(null),
  reads: z.object({
    off: readPlacement.nullable(),
    on: readPlacement.nullable(),
    passes: z.array(passReads).nullable().optional().default([]),
    caused: causedReads.nullable().optional().default(null),
  }),
  writePath: z
    .object({
      extentsOff: z.array(z.number()).nullable(),
      extentsOn: z.array(z.number()).nullable(),
      extentsWarmUp: z.array(z.number()).nullable().optional().default(null),
      fragmentsPrevented: difference.nullable().optional().default(null),
      basis: z.string(),
    })
    .nullable()
    .optional()
    .default(null),
  notes: z.array(z.string()).optional().default([]),
});
export type ProofRunReport = z.infer<typeof proofRunReport>;

/** One run as the console lists it. */
export interface RunSummary {
  id: string;
  serverId: string;
  profile: string;
  status: RunStatus;
  progress: number | null;
  phase: string | null;
  error: string | null;
  parameters: AgentParameters | null;
  requestedBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** A report is stored: a succeeded run's, or the partial one of a run that stopped early. */
  hasReport: boolean;
}
