// The shape of a tuning recommendation (issue 9, docs/recommendations.md): what to change, why
// (evidence with a link to the chart and window), the predicted effect with its basis, and a
// confidence. Stored as JSON by the worker and read back by the console, so every part has a zod
// schema: a row that does not parse is refused at both ends, never shown half-understood.
import { z } from "zod";

export const recommendationKinds = [
  "read_cache_budget",
  "scan_drop_behind",
  "preallocation_rule",
  "defragment_file",
  "flash_tier",
  "enable_capability",
] as const;
export type RecommendationKind = (typeof recommendationKinds)[number];

/** Where the evidence is drawn in the console; the console turns it into a link. */
export const evidenceChartSchema = z.strictObject({
  view: z.enum(["miss-ratio-curve", "read-cache", "page-cache-files", "fragmentation", "write-optimisation", "capabilities"]),
  serverId: z.string().min(1),
  /** The curve or list inside the view: a read-cache scope, a device, a scanned root, a path. */
  component: z.string().max(4096).default(""),
});

export const evidenceSchema = z.strictObject({
  /** What was measured, in the user's words, and the table it was read from. */
  metric: z.string().min(1).max(200),
  source: z.string().min(1).max(200),
  window: z.strictObject({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) }),
  chart: evidenceChartSchema,
  /** The measured facts the recommendation rests on, each with its unit in the label. */
  facts: z.array(z.strictObject({ label: z.string().min(1).max(200), value: z.string().max(4096) })).max(20),
});
export type Evidence = z.infer<typeof evidenceSchema>;

/**
 * The predicted effect. `metric` names what the realised check later measures; `before` is the
 * value on the evidence at today's setting (null when the evidence has no such point), `after`
 * the value at the recommended one. Both are ratios in [0, 1] for hit and served ratios.
 */
export const predictionSchema = z.strictObject({
  metric: z.enum(["read_cache_hit_ratio", "page_cache_miss_share", "flash_read_hit_ratio", "excess_extents", "none"]),
  before: z.number().finite().nullable(),
  after: z.number().finite().nullable(),
  /** One sentence, quoting the numbers: "read hit ratio 61 % → 88 % on the last 7 days' curve". */
  summary: z.string().min(1).max(1000),
  /** What the numbers rest on: the curve and its sample, the list and its interval. */
  basis: z.string().min(1).max(1000),
});
export type Prediction = z.infer<typeof predictionSchema>;

/**
 * How far the realised value may fall from the prediction before the prediction counts as
 * missed (`tolerance`, in the metric's own unit), and why that much.
 */
export const confidenceSchema = z.strictObject({
  level: z.enum(["high", "medium", "low"]),
  tolerance: z.number().finite().nonnegative().nullable(),
  reason: z.string().min(1).max(500),
});
export type Confidence = z.infer<typeof confidenceSchema>;

const pattern = z.string().min(1).max(4096);

/** The policy change Apply makes to the server's own policy layer; null when no policy can do it. */
export const policyChangeSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("set_read_cache_budget"), budgetBytes: z.number().int().positive() }),
  z.strictObject({ type: z.literal("add_read_cache_include"), pattern }),
  z.strictObject({ type: z.literal("add_preallocation_rule"), pattern, chunkBytes: z.number().int().positive() }),
  z.strictObject({ type: z.literal("add_defragmentation_include"), pattern }),
  z.strictObject({ type: z.literal("set_telemetry_ebpf"), mode: z.enum(["auto", "on"]) }),
]);
export type PolicyChange = z.infer<typeof policyChangeSchema>;

/** What one generator found: everything a recommendation row holds but its identity and status. */
export const recommendationFindingSchema = z.strictObject({
  kind: z.enum(recommendationKinds),
  serverId: z.string().min(1),
  /** What the finding is about inside the server: a scope, a path, a device, a capability. */
  subject: z.string().max(4096),
  title: z.string().min(1).max(300),
  /** The exact step when the change is not a policy (agent.yaml, hardware). */
  steps: z.string().max(2000).default(""),
  change: policyChangeSchema.nullable(),
  evidence: evidenceSchema,
  prediction: predictionSchema,
  confidence: confidenceSchema,
});
export type RecommendationFinding = z.infer<typeof recommendationFindingSchema>;
