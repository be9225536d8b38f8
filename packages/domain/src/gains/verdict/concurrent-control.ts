// Difference in differences against servers not yet changed. Whatever moved the whole fleet
// between the two windows (the daily cycle, a busy Monday, a storage array slowing down) moves the
// control servers too and cancels; what remains is the change's own effect. This is the machinery
// the staged rollouts' wave guards rest on (issue 23), so its contract is written out below.
import {
  chooseScale,
  isUsableWindow,
  levelFromScale,
  mean,
  onScale,
  variance,
  windowRatio,
  type Scale,
  type WindowSums,
} from "./window-sums.js";
import { intervalOf, pValueOf, type ScaleEstimate } from "./estimate.js";

/** One server's sums of one metric over the two windows, the same calendar windows for every server. */
export interface ServerWindows {
  serverId: string;
  before: WindowSums;
  after: WindowSums;
}

export const concurrentControlDefaults = {
  /** Fewer usable control servers than this and there is no comparison. */
  minimumControls: 3,
  /** Each window of each server needs at least this denominator (reads, accesses, I/Os). */
  minimumDenominator: 100,
  /** The level of `interval` (p-value and estimate do not depend on it). */
  confidence: 0.95,
};

export type ConcurrentControlComparison =
  | {
      status: "compared";
      method: "concurrent-control";
      estimate: ScaleEstimate;
      pValue: number;
      /** Treated change minus control change, as the user reads it (a fraction on the relative scale, −0.12 = −12 %). */
      change: number;
      interval: { low: number; high: number; confidence: number };
      /** The treated servers' mean level after the change, and what it would have been (their before moved as the controls moved). */
      after: number;
      expected: number;
      treated: string[];
      control: string[];
      excluded: { serverId: string; reason: string }[];
    }
  | { status: "not-enough-data"; reason: string; excluded: { serverId: string; reason: string }[] };

/**
 * Difference in differences of one ratio metric (Σ numerator / Σ denominator) between `treated`
 * servers (changed at the start of `after`) and `control` servers (not changed in either window).
 *
 * Contract:
 * - Input: per server, the metric's sums over the same two calendar windows (the caller chooses
 *   them: the guard window after a wave and the same hours a day earlier, or the adjacent window).
 *   A server is used only when both its windows have `minimumDenominator`; the others are listed
 *   in `excluded` with the reason, never silently dropped.
 * - Each server's change is d = f(after) − f(before), f = log on the relative scale (every value
 *   positive) or the identity on the absolute scale (some value is 0). The estimate is
 *   mean(d treated) − mean(d control), with the pooled standard error
 *   s_p √(1/n_t + 1/n_c) and n_t + n_c − 2 degrees of freedom (Student's t). With one treated
 *   server this is the prediction interval of its change among the controls' changes.
 * - Assumption: without the change, the servers' changes are independent draws from one
 *   distribution (servers that share a disk array, or a wave chosen by how the servers behave,
 *   break it). A positive estimate means the metric rose on the treated servers relative to the
 *   controls; for Spindle's costs per I/O that is worse.
 * - At least one treated server and `minimumControls` usable controls, else "not-enough-data".
 * - Pure and deterministic; O(servers). `intervalOf(result.estimate, level)` gives the interval at
 *   another level (Holm's correction over several metrics does this).
 */
export function differenceInDifferences(
  treated: readonly ServerWindows[],
  control: readonly ServerWindows[],
  options: Partial<typeof concurrentControlDefaults> = {},
): ConcurrentControlComparison {
  const settings = { ...concurrentControlDefaults, ...options };
  const excluded: { serverId: string; reason: string }[] = [];
  const usable = (servers: readonly ServerWindows[]) =>
    servers.filter((server) => {
      const side = !isUsableWindow(server.before, settings.minimumDenominator)
        ? "before"
        : !isUsableWindow(server.after, settings.minimumDenominator)
          ? "after"
          : null;
      if (side)
        excluded.push({ serverId: server.serverId, reason: `fewer than ${settings.minimumDenominator} in the window ${side} the change` });
      return side === null;
    });
  const treatedUsable = usable(treated);
  const controlUsable = usable(control);
  if (treatedUsable.length === 0)
    return { status: "not-enough-data", reason: "no changed server has enough data in both windows", excluded };
  // Degrees of freedom n_t + n_c − 2 must be at least 1, whatever minimumControls says.
  const needed = Math.max(settings.minimumControls, treatedUsable.length === 1 ? 2 : 1);
  if (controlUsable.length < needed) {
    return {
      status: "not-enough-data",
      reason: `${controlUsable.length} servers not yet changed have enough data in both windows; ${needed} are needed`,
      excluded,
    };
  }
  const all = [...treatedUsable, ...controlUsable];
  const scale: Scale = chooseScale(all.flatMap((server) => [windowRatio(server.before), windowRatio(server.after)]));
  const changeOf = (server: ServerWindows) => onScale(windowRatio(server.after), scale) - onScale(windowRatio(server.before), scale);
  const treatedChanges = treatedUsable.map(changeOf);
  const controlChanges = controlUsable.map(changeOf);
  const nt = treatedChanges.length;
  const nc = controlChanges.length;
  const df = nt + nc - 2;
  const pooledVariance = ((nt > 1 ? (nt - 1) * variance(treatedChanges) : 0) + (nc - 1) * variance(controlChanges)) / df;
  const estimate: ScaleEstimate = {
    scale,
    estimate: mean(treatedChanges) - mean(controlChanges),
    standardError: Math.sqrt(pooledVariance * (1 / nt + 1 / nc)),
    degreesOfFreedom: df,
  };
  const interval = intervalOf(estimate, settings.confidence);
  const toChange = (value: number) => (scale === "relative" ? Math.expm1(value) : value);
  const treatedBefore = mean(treatedUsable.map((server) => onScale(windowRatio(server.before), scale)));
  const treatedAfter = mean(treatedUsable.map((server) => onScale(windowRatio(server.after), scale)));
  return {
    status: "compared",
    method: "concurrent-control",
    estimate,
    pValue: pValueOf(estimate),
    change: toChange(estimate.estimate),
    interval: { low: toChange(interval.low), high: toChange(interval.high), confidence: settings.confidence },
    after: levelFromScale(treatedAfter, scale),
    expected: levelFromScale(treatedBefore + mean(controlChanges), scale),
    treated: treatedUsable.map((server) => server.serverId),
    control: controlUsable.map((server) => server.serverId),
    excluded,
  };
}
