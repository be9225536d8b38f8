// Worlds for the read cache's caused estimate (gains/caused-reads.ts), and the estimate as a
// harness judge. A world is one server's managed files cut into 2 MiB page groups, each drawn into
// the control group with the policy's holdout share, as the agent draws them; every minute each
// group is read and misses by its own heat and the server's memory pressure. The read cache
// multiplies the managed groups' miss probability by the effect (1: it changes nothing, so any
// "saved" or "cost" interval that excludes 0 is a false verdict). Like the agent, the world also
// hashes each group into one of 16 buckets, independently of the draw, and counts both groups per
// bucket; `withoutBuckets` judges as the console does the rows of an agent that sends none.
import { causedReadsSaved, causedReadsDefaults } from "../gains/caused-reads.js";
import { holdoutBuckets } from "../gains/caused-buckets.js";
import type { HoldoutBucketCounts, HoldoutUnit } from "../gains/caused-units.js";
import { pageBytes } from "../gains/reads.js";
import { normalSource, paretoDraw } from "../stats/random.js";
import type { Decision, HarnessScenario } from "./harness.js";

export interface CausedScenario {
  name: string;
  /** Page groups of the managed files (500: 1 GiB). */
  groups: number;
  /** readCache.holdoutPercent / 100. */
  holdoutShare: number;
  /** Page accesses per minute, all groups together, on average. */
  accessesPerMinute: number;
  /** How the groups' heat differs: all equal, log-normal, or a Pareto tail (a few hot spots). */
  heat: { kind: "equal" } | { kind: "lognormal"; sd: number } | { kind: "pareto"; alpha: number };
  /** The miss probability of a group of average heat; hotter groups miss less (∝ heat^−½). */
  missProbability: number;
  /** AR(1) persistence and noise of the log workload and of the log memory pressure, per minute. */
  phi: number;
  noiseSd: number;
}

export interface CausedWorld {
  /** One unit per minute, in time order, as read_cache_holdout gives them to the estimate. */
  units: HoldoutUnit[];
  /** Per minute, the counters per hash bucket (read_cache_holdout_bucket), in pages. */
  buckets: BucketMinute[];
}

/** One minute's counters per bucket: managed accessed, managed missed, control accessed, control missed at [4b .. 4b + 3]. */
type BucketMinute = Float64Array;

function heats(scenario: CausedScenario, random: () => number, normal: () => number): Float64Array {
  const values = new Float64Array(scenario.groups);
  for (let g = 0; g < scenario.groups; g++) {
    const heat = scenario.heat;
    values[g] = heat.kind === "equal" ? 1 : heat.kind === "lognormal" ? Math.exp(heat.sd * normal()) : paretoDraw(random, heat.alpha);
  }
  const mean = values.reduce((total, value) => total + value, 0) / values.length;
  return values.map((value) => value / mean);
}

/** A count with this mean and variance: Poisson-like for small means, normal beyond (fast, and exact enough here). */
function countDraw(mean: number, variance: number, random: () => number, normal: () => number): number {
  if (mean <= 0) return 0;
  if (mean < 30) {
    // Poisson by inversion: small means only, so the loop is short.
    let k = 0;
    let p = Math.exp(-mean);
    let cumulative = p;
    const u = random();
    while (u > cumulative && k < 200) {
      k++;
      p *= mean / k;
      cumulative += p;
    }
    return k;
  }
  return Math.max(0, Math.round(mean + Math.sqrt(variance) * normal()));
}

export function causedWorlds(scenario: CausedScenario, minutes: number): HarnessScenario<CausedWorld> {
  return {
    name: scenario.name,
    world: (random, effect) => {
      const normal = normalSource(random);
      const heat = heats(scenario, random, normal);
      const control = Array.from({ length: scenario.groups }, () => random() < scenario.holdoutShare);
      const bucketOf = Array.from({ length: scenario.groups }, () => Math.floor(random() * holdoutBuckets));
      const buckets: BucketMinute[] = [];
      const baseMiss = heat.map((value) => Math.min(0.95, scenario.missProbability / Math.sqrt(Math.max(value, 0.01))));
      const units: HoldoutUnit[] = [];
      const stationarySd = scenario.noiseSd / Math.sqrt(1 - scenario.phi * scenario.phi);
      let workload = stationarySd * normal();
      let pressure = stationarySd * normal();
      for (let minute = 0; minute < minutes; minute++) {
        workload = scenario.phi * workload + scenario.noiseSd * normal();
        pressure = scenario.phi * pressure + scenario.noiseSd * normal();
        const perGroup = (scenario.accessesPerMinute / scenario.groups) * Math.exp(workload);
        const unit = {
          holdoutShare: scenario.holdoutShare,
          managedAccessedBytes: 0,
          managedMissedBytes: 0,
          controlAccessedBytes: 0,
          controlMissedBytes: 0,
        };
        const perBucket: BucketMinute = new Float64Array(4 * holdoutBuckets);
        // The same for every group this minute: computed once, not 500 times.
        const pressureFactor = Math.exp(pressure);
        for (let g = 0; g < scenario.groups; g++) {
          const mean = perGroup * heat[g]!;
          const accesses = countDraw(mean, mean, random, normal);
          if (accesses === 0) continue;
          const p = Math.min(0.95, baseMiss[g]! * pressureFactor * (control[g] ? 1 : effect));
          const misses = Math.min(accesses, countDraw(accesses * p, accesses * p * (1 - p), random, normal));
          const at = 4 * bucketOf[g]! + (control[g] ? 2 : 0);
          perBucket[at] = perBucket[at]! + accesses;
          perBucket[at + 1] = perBucket[at + 1]! + misses;
          if (control[g]) {
            unit.controlAccessedBytes += accesses * pageBytes;
            unit.controlMissedBytes += misses * pageBytes;
          } else {
            unit.managedAccessedBytes += accesses * pageBytes;
            unit.managedMissedBytes += misses * pageBytes;
          }
        }
        units.push(unit);
        buckets.push(perBucket);
      }
      return { units, buckets };
    },
  };
}

/**
 * The caused estimate over the first `lookMinutes` minutes as the console shows it: "saved" when
 * the interval lies above 0 (the managed pages missed less, the judged cost fell: "better"),
 * "cost" when below 0, and no verdict when it contains 0 or the estimate is not measured.
 */
export function causedJudge(
  iterations = causedReadsDefaults.iterations,
  withoutBuckets = false,
): (world: CausedWorld, lookMinutes: number) => Decision {
  return (world, lookMinutes) => {
    const units = world.units.slice(0, lookMinutes);
    const buckets = withoutBuckets ? null : { counts: bucketSums(world.buckets.slice(0, lookMinutes)), intervals: units.length };
    const result = causedReadsSaved({ units, samples: units.length, ownReadBytes: null, ownPageHitBytes: null, buckets }, { iterations });
    if (result.status !== "measured") return "no-verdict";
    if (result.value.interval.lowPages > 0) return "better";
    if (result.value.interval.highPages < 0) return "worse";
    return "no-verdict";
  };
}

function bucketSums(minutes: readonly BucketMinute[]): HoldoutBucketCounts[] {
  return Array.from({ length: holdoutBuckets }, (_, bucket) => {
    const at = 4 * bucket;
    const total = (offset: number) => minutes.reduce((sum, minute) => sum + minute[at + offset]!, 0) * pageBytes;
    return {
      bucket,
      managedAccessedBytes: total(0),
      managedMissedBytes: total(1),
      controlAccessedBytes: total(2),
      controlMissedBytes: total(3),
    };
  });
}

const base: CausedScenario = {
  name: "",
  groups: 500,
  holdoutShare: 0.1,
  accessesPerMinute: 20_000,
  heat: { kind: "equal" },
  missProbability: 0.2,
  phi: 0,
  noiseSd: 0.1,
};

/** From the easiest case to a few hot spots carrying most of the reads. */
export const causedScenarios: readonly CausedScenario[] = [
  { ...base, name: "equal page groups, steady minutes" },
  { ...base, name: "equal page groups, AR(1) φ 0.8 workload and memory pressure", phi: 0.8, noiseSd: 0.3 },
  { ...base, name: "log-normal heat (σ 1), hot groups miss less", heat: { kind: "lognormal", sd: 1 }, phi: 0.5, noiseSd: 0.2 },
  { ...base, name: "hot spots (Pareto heat, α 1.5), φ 0.8", heat: { kind: "pareto", alpha: 1.5 }, phi: 0.8, noiseSd: 0.3 },
];
