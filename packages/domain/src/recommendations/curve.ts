// Reading a miss-ratio curve (cache_mrc): the hit ratio at a size, and the knee within a cap.
// Between two measured sizes the curve is interpolated linearly (an LRU hit ratio only grows with
// size, so the truth lies between the two points); past the largest measured size nothing is
// known and nothing is read: a prediction never extrapolates.

export interface MissRatioCurve {
  /** Cache sizes in bytes, strictly ascending. */
  sizesBytes: readonly number[];
  /** The hit ratio in [0, 1] an LRU cache of each size would have had. */
  hitRatios: readonly number[];
  sampleRate: number;
  sampledAccesses: number;
  windowFrom: Date;
  windowTo: Date;
}

/** Hit ratio at `sizeBytes`, or null past the largest measured size. A cache of 0 bytes hits nothing. */
export function hitRatioAt(curve: MissRatioCurve, sizeBytes: number): number | null {
  const { sizesBytes: sizes, hitRatios: ratios } = curve;
  if (sizes.length === 0 || sizeBytes > sizes[sizes.length - 1]!) return null;
  if (sizeBytes <= 0) return 0;
  let lowerSize = 0;
  let lowerRatio = 0;
  for (let i = 0; i < sizes.length; i++) {
    const size = sizes[i]!;
    if (sizeBytes === size) return ratios[i]!;
    if (sizeBytes < size) {
      const fraction = (sizeBytes - lowerSize) / (size - lowerSize);
      return lowerRatio + fraction * (ratios[i]! - lowerRatio);
    }
    lowerSize = size;
    lowerRatio = ratios[i]!;
  }
  return null;
}

/** Ratios that differ by less than this are equal (0.89 - 0.88 is not exactly 0.01 in binary). */
export const ratioEpsilon = 1e-9;

export interface Knee {
  sizeBytes: number;
  hitRatio: number;
}

/**
 * The smallest measured size whose hit ratio is within `slack` of the best the curve reaches at
 * or below `capBytes`: past it, more memory buys less than `slack` of hit ratio. Null when no
 * measured size fits under the cap.
 */
export function kneeWithin(curve: MissRatioCurve, capBytes: number, slack: number): Knee | null {
  let best = -1;
  for (let i = 0; i < curve.sizesBytes.length && curve.sizesBytes[i]! <= capBytes; i++) {
    best = Math.max(best, curve.hitRatios[i]!);
  }
  if (best < 0) return null;
  for (let i = 0; i < curve.sizesBytes.length; i++) {
    if (curve.hitRatios[i]! >= best - slack - ratioEpsilon) return { sizeBytes: curve.sizesBytes[i]!, hitRatio: curve.hitRatios[i]! };
  }
  return null;
}
