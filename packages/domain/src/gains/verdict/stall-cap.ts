// Storage stalls: now and then a minute is ten or a hundred times slower than usual (a device
// garbage-collecting, a RAID check, a burst of contention), with a tail heavy enough that one stall
// can outweigh a day of ordinary minutes. A verdict that counts such a minute in full calls an
// unchanged server worse whenever a stall happens to fall after the change. Every method therefore
// judges minutes capped at a multiple of the server's median minute over all the windows of the
// comparison: a stall still counts, as a very slow minute, but cannot decide the verdict alone.
// The console computes the same cap in SQL (apps/console/modules/gains/lib/verdict-sql.ts).
import { medianInPlace } from "../../stats/median.js";
import type { RatioUnit } from "../../stats/ratio.js";
import type { WindowSums } from "./window-sums.js";

export const stallCapDefaults = { multipleOfMedian: 5 };

/**
 * The cap on one minute's ratio: `multipleOfMedian` × the median ratio of the minutes with I/O in
 * all `windows`. Null (no cap) when there are none or the median is 0 (most minutes without a
 * split I/O or a miss): a multiple of 0 would erase every event.
 */
export function stallCap(windows: readonly (readonly RatioUnit[])[], multipleOfMedian = stallCapDefaults.multipleOfMedian): number | null {
  let size = 0;
  for (const units of windows) size += units.length;
  // Sized once and reordered in place: the simulations take this median millions of times.
  const ratios = new Float64Array(size);
  let count = 0;
  for (const units of windows) for (const unit of units) if (unit.denominator > 0) ratios[count++] = unit.numerator / unit.denominator;
  if (count === 0) return null;
  const middle = medianInPlace(ratios.subarray(0, count));
  return middle > 0 ? multipleOfMedian * middle : null;
}

/** A window's sums with each minute's numerator at most cap × its denominator, and how many minutes were capped. */
export function cappedSums(units: readonly RatioUnit[], cap: number | null): WindowSums & { cappedMinutes: number } {
  let numerator = 0;
  let denominator = 0;
  let cappedMinutes = 0;
  for (const unit of units) {
    const limit = cap === null ? Infinity : cap * unit.denominator;
    if (unit.numerator > limit) cappedMinutes++;
    numerator += Math.min(unit.numerator, limit);
    denominator += unit.denominator;
  }
  return { numerator, denominator, cappedMinutes };
}

/** Units with each minute capped, for the block bootstrap. */
export function capUnits(units: readonly RatioUnit[], cap: number | null): RatioUnit[] {
  if (cap === null) return [...units];
  return units.map((unit) => ({ numerator: Math.min(unit.numerator, cap * unit.denominator), denominator: unit.denominator }));
}
