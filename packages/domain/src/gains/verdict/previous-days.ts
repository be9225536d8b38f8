// The after window against the same window on the previous days. Each previous day's window shows
// what this hour of this server looks like without the change: its daily cycle, its drift and its
// persistent noise included. The prediction is the mean of the most recent days; how wrong such a
// prediction is without a change is measured on the history itself (placebo predictions: each
// earlier day predicted from the days before it, exactly as the after window is). Days are not
// interchangeable when the level wanders over days, so the plain spread of seven days understates
// the error of a prediction for tomorrow; the placebo errors do not (docs/gains.md has the figures).
import { isUsableWindow, chooseScale, levelFromScale, mean, onScale, windowRatio, type Scale, type WindowSums } from "./window-sums.js";
import type { ScaleEstimate } from "./estimate.js";

export const previousDaysDefaults = {
  /** Previous days looked at; a week covers each weekday once. */
  maximumDays: 7,
  /** The prediction is the mean of this many most recent usable days. */
  referenceDays: 2,
  /** Fewer usable days than this and the method answers "not enough data" (two placebo errors at least). */
  minimumDays: 4,
  minimumDenominator: 100,
  /** Force a scale (a hit ratio's change is read in points); by default relative when every value is positive. */
  scale: null as Scale | null,
};

export type PreviousDaysComparison =
  | {
      status: "compared";
      method: "previous-days";
      estimate: ScaleEstimate;
      after: number;
      /** The prediction, back on the metric's unit (a geometric mean on the relative scale). */
      expected: number;
      /** The usable previous days (1 = yesterday), most recent first. */
      days: number[];
      /** How many placebo predictions measured the error. */
      placebos: number;
    }
  | { status: "not-enough-data"; reason: string };

/**
 * Degrees of freedom of the placebo errors' mean square (Satterthwaite: (tr Σ)² / tr Σ²), with Σ
 * their covariance when days are independent with equal variance. The placebo errors share days,
 * so five of them carry about three and a half degrees of freedom, not five.
 */
export function placeboDegreesOfFreedom(placebos: number, referenceDays: number): number {
  const weights = (j: number) => {
    const entries = new Map<number, number>([[j, 1]]);
    for (let i = j + 1; i <= j + referenceDays; i++) entries.set(i, -1 / referenceDays);
    return entries;
  };
  const covariance = (a: number, b: number) => {
    let sum = 0;
    const wb = weights(b);
    for (const [day, weight] of weights(a)) sum += weight * (wb.get(day) ?? 0);
    return sum;
  };
  let trace = 0;
  let traceOfSquare = 0;
  for (let a = 0; a < placebos; a++) {
    trace += covariance(a, a);
    for (let b = 0; b < placebos; b++) traceOfSquare += covariance(a, b) ** 2;
  }
  return (trace * trace) / traceOfSquare;
}

/**
 * `previousDays[i]` is the same window i + 1 days before the after window (null: no telemetry).
 * With usable days z₁…z_k (most recent first, on the scale) and the after window z₀:
 * estimate = z₀ − mean(z₁…z_m) (m = referenceDays); placebo errors e_j = z_j − mean(z_{j+1}…z_{j+m})
 * for j = 1…k − m; standard error = √(mean e_j²), with Satterthwaite's degrees of freedom.
 */
export function compareWithPreviousDays(
  after: WindowSums,
  previousDays: readonly (WindowSums | null)[],
  unit: string,
  options: Partial<typeof previousDaysDefaults> = {},
): PreviousDaysComparison {
  const settings = { ...previousDaysDefaults, ...options };
  if (!isUsableWindow(after, settings.minimumDenominator)) {
    return { status: "not-enough-data", reason: `fewer than ${settings.minimumDenominator} ${unit} after the change` };
  }
  const usable = previousDays
    .slice(0, settings.maximumDays)
    .map((sums, index) => ({ day: index + 1, sums }))
    .filter((entry): entry is { day: number; sums: WindowSums } => isUsableWindow(entry.sums, settings.minimumDenominator));
  const minimumDays = Math.max(settings.minimumDays, settings.referenceDays + 2);
  if (usable.length < minimumDays) {
    return {
      status: "not-enough-data",
      reason: `${usable.length} of the ${settings.maximumDays} previous days have this window with at least ${settings.minimumDenominator} ${unit}; ${minimumDays} are needed`,
    };
  }
  const values = [windowRatio(after), ...usable.map((entry) => windowRatio(entry.sums))];
  const scale = settings.scale ?? chooseScale(values);
  const z = values.map((value) => onScale(value, scale));
  const m = settings.referenceDays;
  const prediction = (j: number) => mean(z.slice(j + 1, j + 1 + m));
  const placebos: number[] = [];
  for (let j = 1; j + m < z.length; j++) placebos.push(z[j]! - prediction(j));
  const meanSquare = placebos.reduce((sum, error) => sum + error * error, 0) / placebos.length;
  return {
    status: "compared",
    method: "previous-days",
    estimate: {
      scale,
      estimate: z[0]! - prediction(0),
      standardError: Math.sqrt(meanSquare),
      degreesOfFreedom: placeboDegreesOfFreedom(placebos.length, m),
    },
    after: values[0]!,
    expected: levelFromScale(prediction(0), scale),
    days: usable.map((entry) => entry.day),
    placebos: placebos.length,
  };
}
