// Read-cache budget up or down: the knee of the read cache's miss-ratio curve, capped by the
// memory the host can spare. No curve, no spare-memory history, or a curve too thin to trust:
// no recommendation (the capability generator says what is missing).
import { curveConfidence } from "./confidence.js";
import { hitRatioAt, kneeWithin, ratioEpsilon, type MissRatioCurve } from "./curve.js";
import { formatBytes, formatCount, formatPercent } from "./format.js";
import { describeWindow } from "./window.js";
import type { RecommendationFinding } from "./types.js";

const mebibyte = 1024 * 1024;

/** Past the knee, more memory buys less than this much hit ratio. */
export const kneeSlack = 0.01;
/** A raise must buy at least this much hit ratio to be worth the memory. */
export const minimumGain = 0.02;
/** A cut must free at least this much memory, and a quarter of the budget. */
export const minimumReleaseBytes = 256 * mebibyte;

export interface BudgetCurve extends MissRatioCurve {
  curve: "read_cache" | "page_cache";
  scope: string;
}

export interface ReadCacheBudgetInput {
  serverId: string;
  curve: BudgetCurve | null;
  readCache: { enabled: boolean; freeMemoryFloorBytes: number; scanResistanceThresholdBytes: number };
  /** The budget the agent enforced at the end of the curve's window (read_cache.budget_bytes). */
  currentBudgetBytes: number | null;
  /** MemAvailable over the last days: its 5th percentile and the samples it rests on. */
  availableMemory: { p5Bytes: number; samples: number; from: Date; to: Date } | null;
}

export function readCacheBudgetFinding(input: ReadCacheBudgetInput): RecommendationFinding | null {
  const { curve, availableMemory: memory, currentBudgetBytes: current } = input;
  if (!input.readCache.enabled || curve === null || memory === null || current === null || current <= 0) return null;
  const confidence = curveConfidence(curve.sampledAccesses, curve.curve === "page_cache");
  if (confidence === null) return null;
  // The agent's own rule: the budget never eats into the free-memory floor.
  const spareBytes = memory.p5Bytes - input.readCache.freeMemoryFloorBytes;
  if (spareBytes <= 0) return null;
  const knee = kneeWithin(curve, spareBytes, kneeSlack);
  const before = hitRatioAt(curve, current);
  if (knee === null || before === null) return null;

  const raise = knee.sizeBytes > current * 1.1 && knee.hitRatio - before >= minimumGain - ratioEpsilon;
  const cut =
    !raise &&
    knee.sizeBytes <= current * 0.75 &&
    current - knee.sizeBytes >= minimumReleaseBytes &&
    before - knee.hitRatio <= kneeSlack + ratioEpsilon &&
    knee.sizeBytes > input.readCache.scanResistanceThresholdBytes;
  if (!raise && !cut) return null;

  const window = describeWindow(curve.windowFrom, curve.windowTo);
  const curveName = curve.curve === "read_cache" ? `the read cache${curve.scope ? ` (scope ${curve.scope})` : ""}` : "the whole page cache";
  const change = `budget ${formatBytes(current)} → ${formatBytes(knee.sizeBytes)}`;
  const summary =
    `${change}: read hit ratio ${formatPercent(before)} → ${formatPercent(knee.hitRatio)} on the curve of ${window}; ` +
    `the host has ${formatBytes(spareBytes)} spare at the 5th percentile`;
  return {
    kind: "read_cache_budget",
    serverId: input.serverId,
    subject: "readCache.budgetBytes",
    title: raise
      ? `Raise the read-cache budget from ${formatBytes(current)} to ${formatBytes(knee.sizeBytes)}`
      : `Lower the read-cache budget from ${formatBytes(current)} to ${formatBytes(knee.sizeBytes)}`,
    steps: "",
    change: { type: "set_read_cache_budget", budgetBytes: knee.sizeBytes },
    evidence: {
      metric: `miss-ratio curve of ${curveName}`,
      source: "cache_mrc: SHARDS sample of the host's accesses",
      window: { from: curve.windowFrom.toISOString(), to: curve.windowTo.toISOString() },
      chart: { view: "miss-ratio-curve", serverId: input.serverId, component: `${curve.curve}:${curve.scope}` },
      facts: [
        { label: "budget the agent enforced", value: formatBytes(current) },
        { label: "hit ratio at that budget", value: formatPercent(before) },
        { label: "knee of the curve within spare memory", value: `${formatBytes(knee.sizeBytes)} (${formatPercent(knee.hitRatio)})` },
        { label: "MemAvailable, 5th percentile", value: `${formatBytes(memory.p5Bytes)} over ${formatCount(memory.samples)} samples` },
        { label: "free-memory floor of the policy", value: formatBytes(input.readCache.freeMemoryFloorBytes) },
        { label: "curve sample", value: `${formatCount(curve.sampledAccesses)} accesses at rate ${curve.sampleRate}` },
      ],
    },
    prediction: {
      metric: "read_cache_hit_ratio",
      before,
      after: knee.hitRatio,
      summary: raise ? summary : `${summary}; frees ${formatBytes(current - knee.sizeBytes)} for applications`,
      basis:
        `LRU hit ratio read off the curve of ${curveName} at both sizes (linear between measured points, never past the largest), ` +
        `capped by MemAvailable's 5th percentile over ${describeWindow(memory.from, memory.to)} minus the free-memory floor`,
    },
    confidence,
  };
}
