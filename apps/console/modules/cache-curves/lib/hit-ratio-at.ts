import type { CacheCurve } from "../types/cache-curves";

/**
 * The curve's hit ratio for a cache of `bytes`: the value at the largest size not above it (a
 * curve is a step function of its grid), the last value past the end, and null below the first
 * size, where the sample cannot tell.
 */
export function hitRatioAt(curve: Pick<CacheCurve, "sizesBytes" | "hitRatios">, bytes: number): number | null {
  let found: number | null = null;
  for (let i = 0; i < curve.sizesBytes.length && curve.sizesBytes[i]! <= bytes; i++) found = curve.hitRatios[i]!;
  return found;
}

/** What the curve is of, in the user's words. */
export function curveLabel(curve: Pick<CacheCurve, "curve" | "scope">): string {
  switch (curve.curve) {
    case "page_cache":
      return "Page cache (whole host)";
    case "read_cache":
      return `Read-cache scope ${curve.scope}`;
    case "block":
      return `Disk ${curve.scope} (flash-tier what-if)`;
  }
}
