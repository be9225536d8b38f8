// The basis of the latency figures: the timed I/Os they come from and the completions they leave
// out (spindle.disk.io.untimed, docs/metrics.md). A missing count is "not measured", never 0.
import { formatNumber } from "@/lib/format";
import { compact } from "@/modules/metrics/lib/columnar";
import type { LatencySeries, UntimedIos } from "../types/deep-telemetry";
import type { LatencyBasisRow } from "./deep-sql";

const notCountedFlushes =
  "flushes are not counted: the disks' counters include flushes the kernel answered without issuing them";
const notReported =
  "the agent did not report untimed I/Os (an agent from before the count, a Windows agent, or a disk without request statistics)";

/** The untimed I/Os of `rows` (one device and operation, or all of them) over the range. */
export function describeUntimed(rows: LatencyBasisRow[]): UntimedIos {
  const measured = rows.filter((row) => row.untimed_operations !== null);
  if (measured.length === 0) {
    return { status: "not-measured", reason: rows.length > 0 && rows.every((row) => row.operation === "flush") ? notCountedFlushes : notReported };
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
    device: row.device, operation: row.operation, time: [], p50Ms: [], p95Ms: [], p99Ms: [],
    summary: { operations: 0, p50: "not measured", p95: "not measured", p99: "not measured", averageMs: null },
    untimed: describeUntimed([row]),
  };
}

/** "latency from N timed I/Os; M more completed without a latency sample (x % of completions)". */
export function describeLatencyBasis(timedOperations: number, untimed: UntimedIos): string {
  const timed = `Latency from ${timedOperations.toLocaleString("en")} timed I/O${timedOperations === 1 ? "" : "s"}`;
  if (untimed.status === "not-measured") return `${timed}; untimed I/Os not measured (${untimed.reason}).`;
  const share = untimed.sharePercent === null ? "" : ` (${formatNumber(untimed.sharePercent)} % of completions`;
  const uncounted = untimed.uncountedTimedOperations > 0
    ? `${share ? "; " : " ("}not counted for ${untimed.uncountedTimedOperations.toLocaleString("en")} of the timed I/Os: flushes, or intervals whose agent did not report them)`
    : share ? ")" : "";
  return `${timed}; ${untimed.operations.toLocaleString("en")} more completed without a latency sample${share}${uncounted}.`;
}
