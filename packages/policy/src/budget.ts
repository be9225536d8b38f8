import type { ReadCachePolicy } from "./schema.js";

/**
 * The read cache's budget on one machine right now: the smallest of the absolute cap, the share
 * of MemAvailable, and what stays above the free-memory floor, so the cache can never take the
 * floor away from applications. Pinned ranges count within it. The agent re-evaluates it at every
 * sample and shrinks at once when it falls; the console shows it from the reported MemAvailable.
 * Mirrored by EffectiveReadCacheBudgetBytes in agent/internal/policy/budget.go.
 */
export function effectiveReadCacheBudgetBytes(readCache: ReadCachePolicy, memAvailableBytes: number): number {
  if (!Number.isSafeInteger(memAvailableBytes)) {
    throw new RangeError(`memAvailableBytes must be a whole number of bytes, got ${memAvailableBytes}`);
  }
  if (!readCache.enabled || memAvailableBytes <= 0) return 0;
  const share = Math.floor((memAvailableBytes * readCache.budgetPercentOfAvailable) / 100);
  const aboveFloor = Math.max(0, memAvailableBytes - readCache.freeMemoryFloorBytes);
  const cap = readCache.budgetBytes ?? Number.POSITIVE_INFINITY;
  return Math.min(share, aboveFloor, cap);
}
