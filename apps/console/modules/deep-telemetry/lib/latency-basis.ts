// The basis of the latency figures: the timed I/Os they come from and the completions they leave
// out (spindle.disk.io.untimed, docs/metrics.md). A missing count is "not measured", never 0.
import { formatNumber } from "@/lib/format";
import { compact } from "@/modules/metrics/lib/columnar";
import type { LatencySeries, UntimedIos } from "../types/deep-telemetry";
import type { LatencyRow, UntimedRow } from "./deep-sql";

/**
 * Per device and operation over the range: the timed I/Os (the histograms' counts) and the
 * untimed ones, matched point by point (raw interval, minute or hour). A point counted its
 * untimed I/Os when every interval of it that has a histogram carried a count (samples: one per
 * interval), so a point from an agent that does not report them is left out of the share instead
 * of counting as 0 untimed. untimed_operations is null when no point of the range carried a count
 * (not measured); counted_untimed_operations is what the counted points (and points with untimed
 * I/Os and no histogram) hold.
 */
export type LatencyBasisRow = {
  device: string;
  operation: string;
  timed_operations: number;
  counted_timed_operations: number;
  untimed_operations: number | null;
  counted_untimed_operations: number | null;
};

/** The basis of each device and operation, from the histograms' points and the untimed counts' points. */
export function latencyBasis(latency: LatencyRow[], untimed: UntimedRow[]): LatencyBasisRow[] {
  const pointKey = (row: { t: number; device: string; operation: string }) => `${row.device}\u0000${row.operation}\u0000${row.t}`;
  const untimedAt = new Map(untimed.map((row) => [pointKey(row), row]));
  const out = new Map<string, LatencyBasisRow>();
  const add = (device: string, operation: string, timed: LatencyRow | undefined, count: UntimedRow | undefined) => {
    const key = `${device}\u0000${operation}`;
    let row = out.get(key);
    if (!row) {
      row = {
        device,
        operation,
        timed_operations: 0,
        counted_timed_operations: 0,
        untimed_operations: null,
        counted_untimed_operations: null,
      };
      out.set(key, row);
    }
    const counted = count !== undefined && (timed === undefined || count.samples >= timed.samples);
    row.timed_operations += timed?.operations ?? 0;
    if (counted) row.counted_timed_operations += timed?.operations ?? 0;
    if (count) row.untimed_operations = (row.untimed_operations ?? 0) + count.untimed_ops;
    if (count && counted) row.counted_untimed_operations = (row.counted_untimed_operations ?? 0) + count.untimed_ops;
  };
  for (const timed of latency) {
    const key = pointKey(timed);
    add(timed.device, timed.operation, timed, untimedAt.get(key));
    untimedAt.delete(key);
  }
  for (const count of untimedAt.values()) add(count.device, count.operation, undefined, count);
  return [...out.values()];
}

const notCountedFlushes = "flushes are not counted: the disks' counters include flushes the kernel answered without issuing them";
const notReported =
  "the agent did not report untimed I/Os (an agent from before the count, a Windows agent, or a disk without request statistics)";

/** The untimed I/Os of `rows` (one device and operation, or all of them) over the range. */
export function describeUntimed(rows: LatencyBasisRow[]): UntimedIos {
  const measured = rows.filter((row) => row.untimed_operations !== null);
  if (measured.length === 0) {
    return {
      status: "not-measured",
      reason: rows.length > 0 && rows.every((row) => row.operation === "flush") ? notCountedFlushes : notReported,
    };
  }
  const total = (pick: (row: LatencyBasisRow) => number | null) => rows.reduce((sum, row) => sum + (pick(row) ?? 0), 0);
  const untimed = total((row) => row.untimed_operations);
  const countedUntimed = total((row) => row.counted_untimed_operations);
  const countedTimed = total((row) => row.counted_timed_operations);
  const completions = countedTimed + countedUntimed;
  return {
    status: "measured",
    operations: untimed,
    sharePercent: completions > 0 ? compact((100 * countedUntimed) / completions) : null,
    uncountedTimedOperations: total((row) => row.timed_operations) - countedTimed,
  };
}

/** A device and operation with untimed I/Os and no histogram in the range: no latency to show. */
export function untimedOnlySeries(row: LatencyBasisRow): LatencySeries {
  return {
    device: row.device,
    operation: row.operation,
    time: [],
    p50Ms: [],
    p95Ms: [],
    p99Ms: [],
    summary: { operations: 0, p50: "not measured", p95: "not measured", p99: "not measured", averageMs: null },
    untimed: describeUntimed([row]),
  };
}

/** "latency from N timed I/Os; M more completed without a latency sample (x % of completions)". */
export function describeLatencyBasis(timedOperations: number, untimed: UntimedIos): string {
  const timed = `Latency from ${timedOperations.toLocaleString("en")} timed I/O${timedOperations === 1 ? "" : "s"}`;
  if (untimed.status === "not-measured") return `${timed}; untimed I/Os not measured (${untimed.reason}).`;
  const share = untimed.sharePercent === null ? "" : ` (${formatNumber(untimed.sharePercent)} % of completions`;
  const uncounted =
    untimed.uncountedTimedOperations > 0
      ? `${share ? "; " : " ("}not counted for ${untimed.uncountedTimedOperations.toLocaleString("en")} of the timed I/Os: flushes, or intervals whose agent did not report them)`
      : share
        ? ")"
        : "";
  return `${timed}; ${untimed.operations.toLocaleString("en")} more completed without a latency sample${share}${uncounted}.`;
}
