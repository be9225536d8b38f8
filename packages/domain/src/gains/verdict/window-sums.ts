// What one window of one server contributes to a verdict: the sums of a per-I/O cost's numerator
// and denominator (latency seconds and reads, misses and accesses), and the scale the comparison
// is made on.

export interface WindowSums {
  numerator: number;
  /** Reads, accesses or I/Os in the window; 0 when the server did no such I/O. */
  denominator: number;
}

export function windowRatio(sums: WindowSums): number {
  return sums.numerator / sums.denominator;
}

/** A window with enough I/O to carry a value; the floor keeps a nearly idle window out. */
export function isUsableWindow(sums: WindowSums | null | undefined, minimumDenominator: number): sums is WindowSums {
  return (
    sums !== null && sums !== undefined && Number.isFinite(sums.numerator) && sums.numerator >= 0 && sums.denominator >= minimumDenominator
  );
}

/**
 * "relative": changes are compared as log ratios and shown as percentages (−18 %), which suits
 * latencies whose noise grows with their level. "absolute": a plain difference in the metric's
 * unit, used when some value is 0 (no split I/O at all, no misses) and a log is undefined.
 */
export type Scale = "relative" | "absolute";

export function chooseScale(values: readonly number[]): Scale {
  return values.every((value) => value > 0) ? "relative" : "absolute";
}

export function onScale(value: number, scale: Scale): number {
  return scale === "relative" ? Math.log(value) : value;
}

/** A difference on the scale as the user reads it: a fraction (−0.18 = −18 %) or a difference. */
export function changeFromScale(difference: number, scale: Scale): number {
  return scale === "relative" ? Math.expm1(difference) : difference;
}

/** A level back from the scale (a geometric mean on the relative scale). */
export function levelFromScale(value: number, scale: Scale): number {
  return scale === "relative" ? Math.exp(value) : value;
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Sample variance (n − 1). */
export function variance(values: readonly number[]): number {
  const centre = mean(values);
  return values.reduce((sum, value) => sum + (value - centre) ** 2, 0) / (values.length - 1);
}

/** A half-open time window [from, to). */
export interface TimeWindow {
  from: Date;
  to: Date;
}
