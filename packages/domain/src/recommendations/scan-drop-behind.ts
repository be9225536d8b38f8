// A file whose sequential scans evict the hot set: nearly every page-cache access to it misses
// (read once, front to back), it brings in more than the scan-resistance threshold per interval,
// and its misses are a large share of the host's. The read cache drops pages behind large
// sequential readers of the files it manages, so the change is to let it manage this file: a scan
// is never ranked hot (heat per byte), and its pages leave right behind the reader.
import { formatBytes, formatCount, formatPercent } from "./format.js";
import type { RecommendationFinding } from "./types.js";

const pageBytes = 4096;
/** A file read this nearly all from storage is being scanned, not reused. */
export const scanMissRatio = 0.9;
/** Its misses must be at least this share of the listed files' misses to matter. */
export const scanMissShare = 0.1;

export interface TopFile {
  path: string;
  accesses: number;
  misses: number;
  intervalSeconds: number;
  seenAt: Date;
  /** Whether the effective policy's readCache include/exclude already manage it. */
  managed: boolean;
}

export interface ScanDropBehindInput {
  serverId: string;
  readCache: { enabled: boolean; scanResistanceThresholdBytes: number };
  /** page_cache_top_files of the server's newest interval. */
  topFiles: readonly TopFile[];
}

export function scanDropBehindFindings(input: ScanDropBehindInput): RecommendationFinding[] {
  if (!input.readCache.enabled || input.topFiles.length === 0) return [];
  const totalMisses = input.topFiles.reduce((sum, file) => sum + file.misses, 0);
  if (totalMisses <= 0) return [];
  const findings: RecommendationFinding[] = [];
  for (const file of input.topFiles) {
    // A file named by its inode ("inode N on /mnt …", or an older agent's inode:<dev>:<ino>) has no path a policy pattern could match.
    if (file.managed || !file.path.startsWith("/")) continue;
    const missRatio = file.misses / file.accesses;
    const share = file.misses / totalMisses;
    const missedBytes = file.misses * pageBytes;
    if (missRatio < scanMissRatio || share < scanMissShare || missedBytes < input.readCache.scanResistanceThresholdBytes) continue;
    const windowFrom = new Date(file.seenAt.getTime() - file.intervalSeconds * 1000);
    findings.push({
      kind: "scan_drop_behind",
      serverId: input.serverId,
      subject: file.path,
      title: `Drop pages behind scans of ${file.path}`,
      steps: "",
      change: { type: "add_read_cache_include", pattern: file.path },
      evidence: {
        metric: "page-cache accesses and misses of the file",
        source: "page_cache_top_files (eBPF per-file counters)",
        window: { from: windowFrom.toISOString(), to: file.seenAt.toISOString() },
        chart: { view: "page-cache-files", serverId: input.serverId, component: file.path },
        facts: [
          { label: "page accesses", value: formatCount(file.accesses) },
          { label: "of which missed", value: `${formatCount(file.misses)} (${formatPercent(missRatio)})` },
          { label: "brought in from storage", value: formatBytes(missedBytes) },
          { label: "share of the listed files' misses", value: formatPercent(share) },
          { label: "scan-resistance threshold", value: formatBytes(input.readCache.scanResistanceThresholdBytes) },
        ],
      },
      prediction: {
        metric: "page_cache_miss_share",
        before: share,
        after: null,
        summary:
          `${formatPercent(share)} of the page-cache misses in the newest interval were this file's (${formatBytes(missedBytes)} read once, ` +
          `${formatPercent(missRatio)} missed): managed by the read cache, its pages are dropped right behind the reader instead of pushing the hot set out`,
        basis: "per-file page-cache counters of one agent interval; the realised effect is the read cache's hit ratio before and after",
      },
      confidence: {
        level: "medium",
        tolerance: null,
        reason: "one interval's per-file counters show the scan; how much of the hot set it evicted is not measured directly",
      },
    });
  }
  return findings;
}
