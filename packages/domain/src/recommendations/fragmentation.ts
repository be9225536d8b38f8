// Two write-path findings from the fragmentation scan's worst files:
//  - files of one directory and extension that keep fragmenting (the root's excess extents grew
//    over the window) and that no preallocation rule covers: a rule for them;
//  - a hot fragmented file (among the page cache's most accessed files): defragment it.
import { formatBytes, formatCount } from "./format.js";
import type { RecommendationFinding } from "./types.js";

const mebibyte = 1024 * 1024;
/** ext4's largest extent with 4 KiB blocks: a defragmented file needs at least size / this extents. */
export const largestExtentBytes = 128 * mebibyte;
/** The chunk the preallocation rule starts with (the policy's default). */
export const defaultChunkBytes = 64 * mebibyte;

export interface FragmentedFile {
  root: string;
  path: string;
  extents: number;
  sizeBytes: number;
  seenAt: Date;
  /** Matched by a preallocation rule / by defragmentation.include of the effective policy. */
  preallocated: boolean;
  defragmented: boolean;
}

export interface RootHistory {
  root: string;
  firstExcessExtents: number;
  lastExcessExtents: number;
  from: Date;
  to: Date;
  scans: number;
}

/** The fewest extents a file of this size can have on ext4. */
export function idealExtents(sizeBytes: number): number {
  return Math.max(1, Math.ceil(sizeBytes / largestExtentBytes));
}

function isFragmented(file: FragmentedFile, extentThreshold: number): boolean {
  return file.extents > extentThreshold && file.extents > idealExtents(file.sizeBytes);
}

/** "/var/log/app/a.log" → "/var/log/app/*.log"; a file without an extension gets its own path. */
export function growthPattern(path: string): string {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf(".");
  if (slash < 0 || dot <= 0) return path;
  return `${path.slice(0, slash)}/*${name.slice(dot)}`;
}

export interface PreallocationInput {
  serverId: string;
  extentThreshold: number;
  worstFiles: readonly FragmentedFile[];
  roots: readonly RootHistory[];
}

export function preallocationFindings(input: PreallocationInput): RecommendationFinding[] {
  const growing = new Map(input.roots.filter((r) => r.scans >= 2 && r.lastExcessExtents > r.firstExcessExtents).map((r) => [r.root, r]));
  const groups = new Map<string, FragmentedFile[]>();
  for (const file of input.worstFiles) {
    if (file.preallocated || !growing.has(file.root) || !isFragmented(file, input.extentThreshold)) continue;
    const pattern = growthPattern(file.path);
    groups.set(pattern, [...(groups.get(pattern) ?? []), file]);
  }
  return [...groups].map(([pattern, files]) => {
    const root = growing.get(files[0]!.root)!;
    const extents = files.reduce((sum, f) => sum + f.extents, 0);
    const excess = files.reduce((sum, f) => sum + f.extents - idealExtents(f.sizeBytes), 0);
    return {
      kind: "preallocation_rule",
      serverId: input.serverId,
      subject: pattern,
      title: `Preallocate ${pattern} in ${formatBytes(defaultChunkBytes)} chunks`,
      steps: "",
      change: { type: "add_preallocation_rule", pattern, chunkBytes: defaultChunkBytes },
      evidence: {
        metric: "extents of the scan's worst files and the root's excess extents",
        source: "fragmentation_worst_files, fragmentation_scans (FIEMAP)",
        window: { from: root.from.toISOString(), to: root.to.toISOString() },
        chart: { view: "fragmentation", serverId: input.serverId, component: root.root },
        facts: [
          {
            label: "files",
            value: files.map((f) => `${f.path} (${formatCount(f.extents)} extents, ${formatBytes(f.sizeBytes)})`).join("; "),
          },
          {
            label: `excess extents under ${root.root}`,
            value: `${formatCount(root.firstExcessExtents)} → ${formatCount(root.lastExcessExtents)} over ${root.scans} scans`,
          },
        ],
      },
      prediction: {
        metric: "excess_extents",
        before: excess,
        after: null,
        summary:
          `${files.length === 1 ? "this file holds" : `these ${files.length} files hold`} ${formatCount(extents)} extents (${formatCount(excess)} more than ext4 needs); ` +
          `with the rule, new growth is reserved ahead in windows of at least ${formatBytes(defaultChunkBytes)}, so growth stops adding extents`,
        basis:
          "FIEMAP extent counts of the newest scan and the root's excess extents across scans; write optimisation's comparison group measures the fragments prevented",
      },
      confidence: {
        level: "medium",
        tolerance: null,
        reason:
          "the growth seen across scans shows the files keep fragmenting; how fast they grow next decides how many fragments the rule prevents",
      },
    } satisfies RecommendationFinding;
  });
}

export interface DefragmentInput {
  serverId: string;
  extentThreshold: number;
  worstFiles: readonly FragmentedFile[];
  /** Paths among the page cache's most accessed files, with their accesses. */
  hotFiles: ReadonlyMap<string, number>;
}

export function defragmentFindings(input: DefragmentInput): RecommendationFinding[] {
  return input.worstFiles
    .filter((file) => !file.defragmented && input.hotFiles.has(file.path) && isFragmented(file, input.extentThreshold))
    .map((file) => {
      const ideal = idealExtents(file.sizeBytes);
      return {
        kind: "defragment_file",
        serverId: input.serverId,
        subject: file.path,
        title: `Defragment ${file.path} (${formatCount(file.extents)} extents)`,
        steps: "",
        change: { type: "add_defragmentation_include", pattern: file.path },
        evidence: {
          metric: "extents of a file among the most accessed",
          source: "fragmentation_worst_files (FIEMAP), page_cache_top_files",
          window: { from: file.seenAt.toISOString(), to: file.seenAt.toISOString() },
          chart: { view: "fragmentation", serverId: input.serverId, component: file.root },
          facts: [
            { label: "extents", value: formatCount(file.extents) },
            { label: "size", value: formatBytes(file.sizeBytes) },
            { label: "page accesses in the newest interval", value: formatCount(input.hotFiles.get(file.path)!) },
          ],
        },
        prediction: {
          metric: "excess_extents",
          before: file.extents - ideal,
          after: 0,
          summary: `${formatCount(file.extents)} extents → ${formatCount(ideal)} (ext4's fewest for ${formatBytes(file.sizeBytes)}) when online defragmentation has rewritten it while the disk is idle`,
          basis: "FIEMAP extent count of the newest scan; ext4 extents hold at most 128 MiB",
        },
        confidence: {
          level: "medium",
          tolerance: null,
          reason: "reaching the fewest extents needs contiguous free space; the next scan shows the count reached",
        },
      } satisfies RecommendationFinding;
    });
}
