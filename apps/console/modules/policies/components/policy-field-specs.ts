// The form's fields, in the schema's order. Labels and hints are the console's words; limits come
// from @spindle/policy's policyLimits so the form quotes what the schema enforces.
import { policyLimits as limits } from "@spindle/policy";
import { formatBinaryBytes } from "../lib/format-policy-value";

export type FieldKind = "boolean" | "integer" | "bytes" | "budget" | "globs" | "paths" | "ebpf";

export interface FieldSpec {
  segments: string[];
  label: string;
  kind: FieldKind;
  hint: string;
  unit?: string;
}

export interface SectionSpec {
  key: "readCache" | "writeOptimization" | "telemetry";
  title: string;
  description: string;
  fields: FieldSpec[];
}

const bytes = (value: number) => formatBinaryBytes(value);

export const policySections: SectionSpec[] = [
  {
    key: "readCache",
    title: "Read cache",
    description: "Keep the hot files resident in the page cache within a memory budget.",
    fields: [
      { segments: ["readCache", "enabled"], label: "Enabled", kind: "boolean", hint: "Needs at least one include pattern." },
      {
        segments: ["readCache", "budgetBytes"],
        label: "Budget cap",
        kind: "budget",
        hint: `Absolute cap on managed bytes, at least ${bytes(limits.minBudgetBytes)}; "No cap" leaves only the percentage.`,
      },
      {
        segments: ["readCache", "budgetPercentOfAvailable"],
        label: "Budget share of available memory",
        kind: "integer",
        unit: "%",
        hint: `${limits.budgetPercentOfAvailable.min}–${limits.budgetPercentOfAvailable.max} % of MemAvailable.`,
      },
      {
        segments: ["readCache", "freeMemoryFloorBytes"],
        label: "Free memory floor",
        kind: "bytes",
        hint: `Always left to applications (at least ${bytes(limits.freeMemoryFloorBytes.min)}); the cache shrinks at once below it.`,
      },
      {
        segments: ["readCache", "include"],
        label: "Include",
        kind: "globs",
        hint: "Absolute glob patterns, one per line: /var/lib/postgresql/16/main/base/**",
      },
      { segments: ["readCache", "exclude"], label: "Exclude", kind: "globs", hint: "Never managed; exclude wins over include." },
      {
        segments: ["readCache", "pin"],
        label: "Pin",
        kind: "paths",
        hint: "Plain paths kept resident within the budget; each must be included and not excluded.",
      },
      {
        segments: ["readCache", "scanResistanceThresholdBytes"],
        label: "Scan resistance threshold",
        kind: "bytes",
        hint: "A sequential reader past this much of a file has its pages dropped behind it; below the budget cap.",
      },
      {
        segments: ["readCache", "prefetch"],
        label: "Prefetch",
        kind: "boolean",
        hint: "Read included files ahead into the cache (issues I/O of its own).",
      },
      {
        segments: ["readCache", "holdoutPercent"],
        label: "Control group (holdout)",
        kind: "integer",
        unit: "%",
        hint: `${limits.holdoutPercent.min}–${limits.holdoutPercent.max} % of the managed pages left alone, drawn by hash for each policy version, so the savings the cache caused are measured against them; 0 leaves no control and the caused savings are not measured.`,
      },
    ],
  },
  {
    key: "writeOptimization",
    title: "Write optimisation",
    description: "Fewer fragments: preallocate growing files, defragment hot ones while the disk is idle.",
    fields: [
      {
        segments: ["writeOptimization", "enabled"],
        label: "Enabled",
        kind: "boolean",
        hint: "Required for preallocation and defragmentation.",
      },
      {
        segments: ["writeOptimization", "defragmentation", "enabled"],
        label: "Online defragmentation",
        kind: "boolean",
        hint: "Needs at least one defragmentation include pattern.",
      },
      {
        segments: ["writeOptimization", "defragmentation", "extentThreshold"],
        label: "Extent threshold",
        kind: "integer",
        unit: "extents",
        hint: `${limits.extentThreshold.min}–${limits.extentThreshold.max.toLocaleString("en")}: files with more extents are defragmented.`,
      },
      {
        segments: ["writeOptimization", "defragmentation", "idleOnly"],
        label: "Only while idle",
        kind: "boolean",
        hint: "Move extents only while the disk is idle.",
      },
      {
        segments: ["writeOptimization", "defragmentation", "include"],
        label: "Defragment",
        kind: "globs",
        hint: "The only files defragmentation may rewrite, one pattern per line.",
      },
    ],
  },
  {
    key: "telemetry",
    title: "Telemetry",
    description: "How often the agent samples, and what it measures.",
    fields: [
      {
        segments: ["telemetry", "intervalSeconds"],
        label: "Interval",
        kind: "integer",
        unit: "s",
        hint: `${limits.intervalSeconds.min}–${limits.intervalSeconds.max} seconds between samples.`,
      },
      {
        segments: ["telemetry", "ebpf"],
        label: "eBPF",
        kind: "ebpf",
        hint: "On refuses the policy where eBPF cannot load; auto uses it where possible.",
      },
      {
        segments: ["telemetry", "fragmentationScan", "paths"],
        label: "Fragmentation scan paths",
        kind: "paths",
        hint: "Directories whose files' extents are counted; none turns the scan off.",
      },
      {
        segments: ["telemetry", "fragmentationScan", "periodSeconds"],
        label: "Fragmentation scan period",
        kind: "integer",
        unit: "s",
        hint: `${limits.scanPeriodSeconds.min}–${limits.scanPeriodSeconds.max.toLocaleString("en")} s, not shorter than the interval.`,
      },
    ],
  },
];

/** The path the preallocation list editor owns (placed after writeOptimization.enabled). */
export const preallocationSegments = ["writeOptimization", "preallocation"];

/** Every path the form shows; problems and fields elsewhere are listed above the form. */
export const formPaths = [
  ...policySections.flatMap((section) => section.fields.map((field) => field.segments.join("."))),
  preallocationSegments.join("."),
  "schemaVersion",
];
