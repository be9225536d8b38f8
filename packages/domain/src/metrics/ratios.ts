// Ratios the console draws from summed counters, exact over any bucket or range because they
// are ratios of sums (docs/metrics.md).

/** Page-cache hit ratio in %: 1 − misses / accesses; null when nothing was read. */
export function cacheHitRatioPercent(accesses: number, misses: number): number | null {
  if (accesses <= 0) return null;
  return 100 * Math.max(0, 1 - misses / accesses);
}

/** PostgreSQL buffer hit ratio in %: hit / (hit + read); null when no block was needed. */
export function bufferHitRatioPercent(blocksHit: number, blocksRead: number): number | null {
  const total = blocksHit + blocksRead;
  return total > 0 ? (100 * blocksHit) / total : null;
}
