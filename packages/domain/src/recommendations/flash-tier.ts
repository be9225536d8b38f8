// A flash tier in front of a device: the block stream's miss-ratio curve (below the page cache)
// says what share of the device's I/O an LRU flash cache of each size would have served. The
// recommendation is the knee of that curve; no policy can add hardware, so Apply is not offered.
import { curveConfidence } from "./confidence.js";
import { kneeWithin, type MissRatioCurve } from "./curve.js";
import { formatBytes, formatCount, formatPercent } from "./format.js";
import { describeWindow } from "./window.js";
import type { RecommendationFinding } from "./types.js";

/** Below this share of I/O served, a flash tier is not worth recommending. */
export const minimumFlashHitRatio = 0.3;

export function flashTierFinding(serverId: string, device: string, curve: MissRatioCurve): RecommendationFinding | null {
  const confidence = curveConfidence(curve.sampledAccesses, false);
  const largest = curve.sizesBytes[curve.sizesBytes.length - 1];
  if (confidence === null || largest === undefined) return null;
  const knee = kneeWithin(curve, largest, 0.01);
  if (knee === null || knee.hitRatio < minimumFlashHitRatio) return null;
  const window = describeWindow(curve.windowFrom, curve.windowTo);
  return {
    kind: "flash_tier",
    serverId,
    subject: device,
    title: `A ${formatBytes(knee.sizeBytes)} flash tier in front of ${device} would serve ${formatPercent(knee.hitRatio)} of its I/O`,
    steps:
      `Put a flash cache of at least ${formatBytes(knee.sizeBytes)} in front of ${device} (for example lvmcache or bcache in writethrough mode), ` +
      "then compare its measured hit ratio with this prediction.",
    change: null,
    evidence: {
      metric: `miss-ratio curve of the block I/O on ${device}`,
      source: "cache_mrc: SHARDS sample of block I/O below the page cache",
      window: { from: curve.windowFrom.toISOString(), to: curve.windowTo.toISOString() },
      chart: { view: "miss-ratio-curve", serverId, component: `block:${device}` },
      facts: [
        { label: "knee of the curve", value: `${formatBytes(knee.sizeBytes)} (${formatPercent(knee.hitRatio)})` },
        { label: "largest size measured", value: formatBytes(largest) },
        { label: "curve sample", value: `${formatCount(curve.sampledAccesses)} accesses at rate ${curve.sampleRate}` },
      ],
    },
    prediction: {
      metric: "flash_read_hit_ratio",
      before: 0,
      after: knee.hitRatio,
      summary:
        `a ${formatBytes(knee.sizeBytes)} flash tier would have served ${formatPercent(knee.hitRatio)} of ${device}'s I/O on the curve of ${window}; ` +
        "past that size each more GiB buys under 1 point",
      basis: `LRU hit ratio of the block stream read off the curve at ${formatBytes(knee.sizeBytes)}`,
    },
    confidence,
  };
}
