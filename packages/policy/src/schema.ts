import { z } from "zod";
import { absolutePathPattern, pathProblem, type PathKind, type PathProblemCode } from "./paths.js";
import { policyRuleProblems } from "./rules.js";

// The one schema of a Spindle cache/acceleration policy. Every section and field may be left
// out: a missing section means the feature is off, a missing field takes the default below.
// The Go agent mirrors this file in agent/internal/policy/policy.go (same names, limits and
// defaults); the vectors in ../vectors hold the two to the same answers.

const mebibyte = 1024 * 1024;
const gibibyte = 1024 * mebibyte;
const pebibyte = 1024 * 1024 * gibibyte;

/** Limits and defaults, exported so forms and docs quote the same numbers the schema enforces. */
export const policyLimits = {
  schemaVersion: 1,
  maxBytes: pebibyte,
  minBudgetBytes: 16 * mebibyte,
  budgetPercentOfAvailable: { min: 1, max: 90, default: 25 },
  freeMemoryFloorBytes: { min: 64 * mebibyte, default: 512 * mebibyte },
  scanResistanceThresholdBytes: { min: mebibyte, default: 128 * mebibyte },
  maxPatterns: 256,
  maxPreallocationRules: 64,
  chunkBytes: { min: mebibyte, max: gibibyte, default: 64 * mebibyte },
  extentThreshold: { min: 2, max: 100_000, default: 16 },
  intervalSeconds: { min: 1, max: 3600, default: 10 },
  maxScanPaths: 64,
  scanPeriodSeconds: { min: 60, max: 7 * 24 * 3600, default: 3600 },
  holdoutPercent: { min: 0, max: 50, default: 10 },
} as const;

const pathMessages: Record<PathProblemCode, string> = {
  path_too_long: "is longer than 4096 bytes",
  backslash_in_path: 'contains "\\": write Windows paths with forward slashes, e.g. "D:/SQLData/*.mdf"',
  not_absolute_path: 'must be an absolute path starting with "/" (or a drive such as "D:/" on Windows)',
  path_not_clean: 'must be a clean path: no empty, "." or ".." segments, no trailing "/", no control characters',
  invalid_glob:
    'is not a valid pattern: "**" must be a whole segment, and each "[" needs a closing "]" around at least one character or range such as a-z',
  glob_too_complex:
    'has too many wildcards: at most 8 "**" segments and 32 "*", "?" or "[…]" in one pattern; split it into several patterns',
  glob_not_allowed: 'must be a plain path, not a pattern: remove "*", "?" and "["',
};

function pathString(kind: PathKind, description: string) {
  return z
    .string()
    .check((payload) => {
      const code = pathProblem(payload.value, kind);
      if (code !== null) {
        payload.issues.push({
          code: "custom",
          input: payload.value,
          message: pathMessages[code],
          params: { code },
        });
      }
    })
    .meta({ description, pattern: absolutePathPattern });
}

function integer(min: number, max: number) {
  return z.number().int().min(min).max(max);
}

function pathList(kind: PathKind, max: number, description: string) {
  const item = pathString(kind, kind === "glob" ? "absolute glob pattern" : "absolute path");
  return z.array(item).max(max).default([]).meta({ description });
}

const { maxBytes } = policyLimits;
const limits = policyLimits;

export const readCacheSchema = z.strictObject({
  enabled: z.boolean().default(false),
  budgetBytes: integer(limits.minBudgetBytes, maxBytes)
    .nullable()
    .default(null)
    .meta({ description: "Absolute cap on managed page-cache bytes; null for no cap beyond the percentage." }),
  budgetPercentOfAvailable: integer(limits.budgetPercentOfAvailable.min, limits.budgetPercentOfAvailable.max)
    .default(limits.budgetPercentOfAvailable.default)
    .meta({ description: "Cap as a share of MemAvailable, in percent." }),
  freeMemoryFloorBytes: integer(limits.freeMemoryFloorBytes.min, maxBytes)
    .default(limits.freeMemoryFloorBytes.default)
    .meta({ description: "Free memory always left to applications; the cache shrinks at once below it." }),
  include: pathList("glob", limits.maxPatterns, "Files the cache manages (a pattern also covers everything beneath a matched directory)."),
  exclude: pathList("glob", limits.maxPatterns, "Files the cache never manages; exclude wins over include."),
  pin: pathList("plain", limits.maxPatterns, "Files or directories kept resident, counted within the budget."),
  scanResistanceThresholdBytes: integer(limits.scanResistanceThresholdBytes.min, maxBytes)
    .default(limits.scanResistanceThresholdBytes.default)
    .meta({ description: "A sequential reader past this many bytes of a file has its pages dropped behind it." }),
  prefetch: z
    .boolean()
    .default(false)
    .meta({ description: "Read included files ahead into the cache (issues I/O of its own, so off unless chosen)." }),
  holdoutPercent: integer(limits.holdoutPercent.min, limits.holdoutPercent.max)
    .default(limits.holdoutPercent.default)
    .meta({
      description:
        "Share of the managed pages (in 2 MiB groups drawn by hash, again for each policy version) the cache leaves alone as a " +
        "control group, so what it caused can be measured; 0 leaves no control and the caused savings are not measured.",
    }),
});

export const preallocationRuleSchema = z.strictObject({
  pattern: pathString("glob", "Growing files to preallocate, as an absolute glob pattern."),
  chunkBytes: integer(limits.chunkBytes.min, limits.chunkBytes.max).default(limits.chunkBytes.default).meta({
    description:
      "The first window reserved ahead of a growing file's end; later windows follow the file's growth rate (up to 8 times the previous one).",
  }),
});

export const defragmentationSchema = z.strictObject({
  enabled: z.boolean().default(false),
  extentThreshold: integer(limits.extentThreshold.min, limits.extentThreshold.max)
    .default(limits.extentThreshold.default)
    .meta({ description: "Defragment a file once it has more than this many extents." }),
  idleOnly: z.boolean().default(true).meta({ description: "Only move extents while the disk is idle." }),
  include: pathList("glob", limits.maxPatterns, "Files that online defragmentation may rewrite."),
});

export const writeOptimizationSchema = z.strictObject({
  enabled: z.boolean().default(false),
  preallocation: z.array(preallocationRuleSchema).max(limits.maxPreallocationRules).default([]),
  defragmentation: defragmentationSchema.prefault({}),
});

export const ebpfModes = ["on", "auto", "off"] as const;

export const telemetrySchema = z.strictObject({
  intervalSeconds: integer(limits.intervalSeconds.min, limits.intervalSeconds.max)
    .default(limits.intervalSeconds.default)
    .meta({ description: "How often the agent samples and exports." }),
  ebpf: z
    .enum(ebpfModes)
    .default("auto")
    .meta({ description: "on: fail the policy if eBPF cannot load; auto: use it where possible; off: never." }),
  fragmentationScan: z
    .strictObject({
      paths: pathList("plain", limits.maxScanPaths, "Directories whose files' extents are counted; empty turns the scan off."),
      periodSeconds: integer(limits.scanPeriodSeconds.min, limits.scanPeriodSeconds.max)
        .default(limits.scanPeriodSeconds.default)
        .meta({ description: "Seconds between two fragmentation scans." }),
    })
    .prefault({}),
});

/**
 * The shape alone: types, ranges, unknown fields, path syntax, defaults. A policy layer (one
 * organisation, group or server document before inheritance) must pass this.
 */
export const policyLayerSchema = z
  .strictObject({
    schemaVersion: z.literal(1).meta({ description: "Version of this schema; always 1." }),
    readCache: readCacheSchema.prefault({}),
    writeOptimization: writeOptimizationSchema.prefault({}),
    telemetry: telemetrySchema.prefault({}),
  })
  .meta({ title: "Spindle policy" });

/**
 * A complete policy: the shape plus the cross-field rules of rules.ts. The rules run only on a
 * well-formed document, so one mistake is reported once, not again as every rule it upsets.
 */
export const policySchema = policyLayerSchema.check((payload) => {
  if (payload.issues.length > 0) return;
  for (const problem of policyRuleProblems(payload.value)) {
    payload.issues.push({
      code: "custom",
      input: payload.value,
      path: problem.path,
      message: problem.message,
      params: { code: problem.code },
    });
  }
});

/** A policy with every default applied: what the agent enforces. */
export type Policy = z.output<typeof policySchema>;
/** A policy as people write it (every field but schemaVersion optional); also one inheritance layer. */
export type PolicyDocument = z.input<typeof policySchema>;
export type ReadCachePolicy = Policy["readCache"];
export type WriteOptimizationPolicy = Policy["writeOptimization"];
export type PreallocationRule = WriteOptimizationPolicy["preallocation"][number];
export type DefragmentationPolicy = WriteOptimizationPolicy["defragmentation"];
export type TelemetryPolicy = Policy["telemetry"];
export type EbpfMode = (typeof ebpfModes)[number];
