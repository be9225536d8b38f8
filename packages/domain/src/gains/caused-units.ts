// The read cache's control group, as the gains maths sees it (issue 21, docs/gains.md "Read
// cache: what it caused"). The agent leaves a hash-drawn share of each managed file's page
// groups alone (readCache.holdoutPercent) and counts, in the kernel, the page accesses and the
// pages read from storage of both groups, leaving out what the read cache itself did. One unit
// is one row of read_cache_holdout: an agent interval, or a 1-minute or 1-hour bucket.
import { integratedAutocorrelationTime } from "../stats/autocorrelation.js";
import type { MaybeNumber } from "./measured.js";

/** One interval of both groups' counters, in bytes (pages × page size). */
export interface HoldoutUnit {
  /** Mean readCache.holdoutPercent / 100 over the unit's rows; 0 where the policy held nothing out. */
  holdoutShare: number;
  managedAccessedBytes: number;
  managedMissedBytes: number;
  controlAccessedBytes: number;
  controlMissedBytes: number;
  /** Agent intervals the unit sums (a 1-minute bucket holds several); 1 when not given. */
  intervals?: number;
}

/** One hash bucket's counters over the whole range, in bytes (read_cache_holdout_bucket). */
export interface HoldoutBucketCounts {
  bucket: number;
  managedAccessedBytes: number;
  managedMissedBytes: number;
  controlAccessedBytes: number;
  controlMissedBytes: number;
}

/** Both groups' counters per hash bucket of page groups, summed over the range. */
export interface HoldoutBucketSums {
  counts: readonly HoldoutBucketCounts[];
  /** Agent intervals that sent them: fewer than the units' means part of the range came from an older agent. */
  intervals: number;
}

/** What read_cache_holdout holds for one server over a range. */
export interface HoldoutSums {
  /** The units in time order; rows without the counters (not measured) are not units. */
  units: readonly HoldoutUnit[];
  /** Rows that carried the counters. */
  samples: number;
  /** Bytes the read cache itself brought into memory (prefetch, pins); null when not sent. */
  ownReadBytes: MaybeNumber;
  /** First accesses by others to pages the read cache brought in, while still resident; null when not sent. */
  ownPageHitBytes: MaybeNumber;
  /** The counters per hash bucket (read_cache_holdout_bucket); absent or null where the agent sent none. */
  buckets?: HoldoutBucketSums | null;
}

export interface GroupTotals {
  managedAccessed: number;
  managedMissed: number;
  controlAccessed: number;
  controlMissed: number;
}

export function groupTotals(units: readonly HoldoutUnit[]): GroupTotals {
  const totals = { managedAccessed: 0, managedMissed: 0, controlAccessed: 0, controlMissed: 0 };
  for (const unit of units) {
    totals.managedAccessed += unit.managedAccessedBytes;
    totals.managedMissed += unit.managedMissedBytes;
    totals.controlAccessed += unit.controlAccessedBytes;
    totals.controlMissed += unit.controlMissedBytes;
  }
  return totals;
}

/** The control's miss ratio minus the managed group's: the misses the cache spared per managed access. */
export function missRatioDifference(totals: GroupTotals): number {
  return totals.controlMissed / totals.controlAccessed - totals.managedMissed / totals.managedAccessed;
}

/**
 * Each unit's share of the estimate's error, to first order (the linearised influence of a
 * ratio of sums): z = (x_c − R_c·a_c) / A_c − (x_m − R_m·a_m) / A_m. They add up to 0.
 */
export function holdoutInfluence(units: readonly HoldoutUnit[], totals: GroupTotals): number[] {
  const controlRatio = totals.controlMissed / totals.controlAccessed;
  const managedRatio = totals.managedMissed / totals.managedAccessed;
  return units.map(
    (unit) =>
      (unit.controlMissedBytes - controlRatio * unit.controlAccessedBytes) / totals.controlAccessed -
      (unit.managedMissedBytes - managedRatio * unit.managedAccessedBytes) / totals.managedAccessed,
  );
}

export interface Dependence {
  /** Integrated autocorrelation time τ of the units' influence (1: independent), by Geyer's initial positive sequence. */
  autocorrelationTime: number;
  /** How many independent units the series is worth: n / τ. */
  effectiveUnits: number;
  /** The block length of the bootstrap, as the before/after verdict takes it: at least n^(1/3) and 2τ, at most n/2. */
  blockLength: number;
}

/**
 * Consecutive intervals are not independent (a cold start, a backup, a busy hour span many), so
 * the interval resamples blocks of consecutive units, and the floor counts effective units. The
 * autocorrelation time is the verdict's (packages/domain/src/stats), of each unit's influence.
 */
export function holdoutDependence(units: readonly HoldoutUnit[], totals: GroupTotals): Dependence {
  const n = units.length;
  const tau = integratedAutocorrelationTime(holdoutInfluence(units, totals));
  const blockLength = Math.max(1, Math.min(Math.floor(n / 2), Math.ceil(Math.max(Math.cbrt(n), 2 * tau))));
  return { autocorrelationTime: tau, effectiveUnits: n / tau, blockLength };
}
