// Storage reads the read cache caused to be saved, against its control group (issue 21):
//
//   saved = managed accesses × (control miss ratio − managed miss ratio)
//
// in pages, with a 95 % interval: a random-groups variance over the agent's hash buckets of page
// groups (caused-buckets.ts), which sees how the control draw itself moves the estimate when page
// groups differ, and what the groups did over the range; where the agent sent no buckets
// (older agents) a moving-block bootstrap over the range's intervals, which sees only the first,
// and the figure says so (`omitsDrawVariance`). Negative
// when the managed pages missed more than the control (the cache made it worse): shown as such.
// "Not measured", with the reason, when there is no control (holdoutPercent 0, no eBPF, Windows),
// when the control saw too few accesses or too few independent intervals to say anything, or
// when the control's share of the accesses is far from its share by design (a hot spot landed on
// one side of the draw, and the estimate would rest on it).
import { holdoutBlockBootstrap } from "./caused-bootstrap.js";
import { bucketInterval, holdoutBuckets, usedBuckets, type BucketInterval } from "./caused-buckets.js";
import {
  holdoutDependence,
  groupTotals,
  type GroupTotals,
  type HoldoutBucketSums,
  type HoldoutSums,
  type HoldoutUnit,
} from "./caused-units.js";
import { measured, notMeasured, type BasisInput, type Measured } from "./measured.js";
import { pageBytes } from "./reads.js";

export const causedReadsDefaults = {
  seed: 20261128,
  iterations: 2000,
  confidence: 0.95,
  /** Units with control accesses, and effective (independent) units, below which nothing is said. */
  minimumUnits: 10,
  /** Control page accesses below which its miss ratio says nothing. */
  minimumControlPages: 1000,
  /** The control's odds of an access may differ from its odds by design by at most this factor. */
  balanceOddsFactor: 3,
  /** Hash buckets with accesses below which their spread says too little (of 16). */
  minimumBuckets: 8,
};

export type CausedReadsOptions = typeof causedReadsDefaults;

/** From the hash buckets: sees the control draw's variance as well as the range's. */
export interface HashBucketInterval {
  method: "hash-buckets";
  lowPages: number;
  highPages: number;
  confidence: number;
  buckets: number;
  degreesOfFreedom: number;
}

/** The block bootstrap over time, for ranges without bucket counts: it omits the draw's variance. */
export interface BlockBootstrapInterval {
  method: "block-bootstrap";
  lowPages: number;
  highPages: number;
  confidence: number;
  iterations: number;
  blockLength: number;
  seed: number;
  omitsDrawVariance: true;
}

export interface CausedReads {
  /** Pages of reads the cache spared applications (negative: it caused more). */
  savedPages: number;
  interval: HashBucketInterval | BlockBootstrapInterval;
  controlMissRatio: number;
  managedMissRatio: number;
  managedAccessedPages: number;
  controlAccessedPages: number;
  /** The control's share of all accesses, and what the draw makes it in expectation. */
  controlShare: number;
  expectedControlShare: number;
  units: number;
  effectiveUnits: number;
}

const pages = (bytes: number) => bytes / pageBytes;
/** 12 significant digits: what the counts can carry, without a float's last-digit noise in a CSV. */
const tidy = (value: number) => Number(value.toPrecision(12));
const percent = (share: number) => `${Number((share * 100).toPrecision(2))} %`;

function controlBasis(totals: GroupTotals, units: number): BasisInput[] {
  return [
    {
      label: "control group (left unmanaged)",
      source: "eBPF page-cache counters per page group (read_cache_holdout)",
      samples: pages(totals.controlAccessed),
      sampleUnit: "page accesses",
    },
    {
      label: "managed group",
      source: "eBPF page-cache counters per page group (read_cache_holdout)",
      samples: pages(totals.managedAccessed),
      sampleUnit: `page accesses over ${units} intervals`,
    },
  ];
}

/** The access-weighted mean holdout share: the control's expected share of the accesses. */
function expectedShare(units: readonly HoldoutUnit[]): number {
  let weighted = 0;
  let accesses = 0;
  for (const unit of units) {
    const unitAccesses = unit.managedAccessedBytes + unit.controlAccessedBytes;
    weighted += unit.holdoutShare * unitAccesses;
    accesses += unitAccesses;
  }
  return accesses > 0 ? weighted / accesses : 0;
}

const odds = (share: number) => share / (1 - share);

export function causedReadsSaved(sums: HoldoutSums, options: Partial<CausedReadsOptions> = {}): Measured<CausedReads> {
  const settings = { ...causedReadsDefaults, ...options };
  if (sums.units.length === 0) {
    return notMeasured(
      "the agent sent no control-group counts in this range: they need the read cache on and the page-cache eBPF program (Linux 6.10 or newer); Windows cannot measure page residency",
    );
  }
  // Intervals without a control (holdoutPercent 0 then) have nothing to compare the managed pages with.
  const units = sums.units.filter((unit) => unit.holdoutShare > 0 && unit.managedAccessedBytes + unit.controlAccessedBytes > 0);
  if (!sums.units.some((unit) => unit.holdoutShare > 0)) {
    return notMeasured(
      "the policy in force leaves no control group (readCache.holdoutPercent 0), so what the read cache caused cannot be told apart from what the kernel's page cache did anyway",
    );
  }
  const totals = groupTotals(units);
  if (totals.managedAccessed <= 0) return notMeasured("the read cache's managed pages were not read in this range");
  const controlUnits = units.filter((unit) => unit.controlAccessedBytes > 0).length;
  const { effectiveUnits, blockLength } =
    totals.controlAccessed > 0 ? holdoutDependence(units, totals) : { effectiveUnits: 0, blockLength: 1 };
  if (pages(totals.controlAccessed) < settings.minimumControlPages || Math.min(controlUnits, effectiveUnits) < settings.minimumUnits) {
    return notMeasured(
      `not enough control accesses: the control group was read ${Math.round(pages(totals.controlAccessed)).toLocaleString("en-US")} pages in ` +
        `${controlUnits} intervals (about ${Math.floor(effectiveUnits)} independent ones); at least ${settings.minimumControlPages.toLocaleString("en-US")} ` +
        `pages in ${settings.minimumUnits} independent intervals are needed: widen the range, or raise readCache.holdoutPercent`,
    );
  }
  const share = totals.controlAccessed / (totals.controlAccessed + totals.managedAccessed);
  const expected = expectedShare(units);
  const ratio = odds(share) / odds(expected);
  if (ratio > settings.balanceOddsFactor || ratio < 1 / settings.balanceOddsFactor) {
    return notMeasured(
      `the control group is unbalanced: it took ${percent(share)} of the accesses where the draw gives it ${percent(expected)}, so a few hot page ` +
        "groups landed on one side and the comparison would rest on them; the next policy version draws the control again",
    );
  }
  const managedAccessedPages = pages(totals.managedAccessed);
  // A_m·X_c/A_c − X_m is A_m·(X_c/A_c − X_m/A_m), with one rounding fewer.
  const savedBytes = (totals.controlMissed * totals.managedAccessed) / totals.controlAccessed - totals.managedMissed;
  const covered = units.reduce((total, unit) => total + (unit.intervals ?? 1), 0);
  let interval: CausedReads["interval"];
  if (sums.buckets && sums.buckets.intervals >= covered) {
    const buckets = intervalFromBuckets(sums.buckets, savedBytes / totals.managedAccessed, expected, settings);
    if (typeof buckets === "string") return notMeasured(buckets);
    interval = {
      method: "hash-buckets",
      lowPages: tidy(managedAccessedPages * buckets.low),
      highPages: tidy(managedAccessedPages * buckets.high),
      confidence: buckets.confidence,
      buckets: buckets.buckets,
      degreesOfFreedom: buckets.degreesOfFreedom,
    };
  } else {
    const bootstrap = holdoutBlockBootstrap(units, {
      blockLength,
      iterations: settings.iterations,
      confidence: settings.confidence,
      seed: settings.seed,
    });
    interval = {
      method: "block-bootstrap",
      lowPages: tidy(managedAccessedPages * bootstrap.low),
      highPages: tidy(managedAccessedPages * bootstrap.high),
      confidence: bootstrap.confidence,
      iterations: bootstrap.iterations,
      blockLength: bootstrap.blockLength,
      seed: bootstrap.seed,
      omitsDrawVariance: true,
    };
  }
  return measured(
    {
      savedPages: tidy(pages(savedBytes)),
      interval,
      controlMissRatio: totals.controlMissed / totals.controlAccessed,
      managedMissRatio: totals.managedMissed / totals.managedAccessed,
      managedAccessedPages,
      controlAccessedPages: pages(totals.controlAccessed),
      controlShare: share,
      expectedControlShare: expected,
      units: units.length,
      effectiveUnits,
    },
    controlBasis(totals, units.length),
  );
}

/** The interval from the buckets, as a difference of miss ratios; a string says why there is none. */
function intervalFromBuckets(
  buckets: HoldoutBucketSums,
  difference: number,
  holdoutShare: number,
  settings: CausedReadsOptions,
): BucketInterval | string {
  const used = usedBuckets(
    buckets.counts.map((b) => ({
      managedAccessed: b.managedAccessedBytes,
      managedMissed: b.managedMissedBytes,
      controlAccessed: b.controlAccessedBytes,
      controlMissed: b.controlMissedBytes,
    })),
  );
  const interval = used.length >= settings.minimumBuckets ? bucketInterval(used, difference, holdoutShare, settings.confidence) : null;
  if (!interval) {
    return (
      `the managed files' page groups fell in ${used.length} of the agent's ${holdoutBuckets} hash buckets ` +
      `(at least ${settings.minimumBuckets} are needed), so how much the control draw moves the comparison cannot be told: too few page groups are read to measure what the read cache caused`
    );
  }
  return interval;
}
