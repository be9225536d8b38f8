// Turns summed rows into the panels' columnar series. Percentiles come from each point's merged
// buckets and, for the summary, from all buckets of the range merged; ratios are ratios of sums.
// A null point is inserted where samples are missing, so charts show a gap, not a bridge.
import {
  bufferHitRatioPercent,
  cacheHitRatioPercent,
  describeLatencyPercentile,
  latencyPercentile,
  mergeLatencyBuckets,
  percentileEdgeMs,
} from "@spindle/domain";
import { compact } from "@/modules/metrics/lib/columnar";
import type { CacheHitSeries, DatabaseSeries, LatencySeries, SplitIoSeries, SqlServerSeries } from "../types/deep-telemetry";
import type { DatabaseRow, LatencyRow, PageCacheRow, SplitRow, SqlServerRow } from "./deep-sql";
import { describeUntimed, untimedOnlySeries, type LatencyBasisRow } from "./latency-basis";

const GAP_FACTOR = 1.5;

function medianSpacing(times: number[]): number {
  const gaps = times
    .slice(1)
    .map((t, i) => t - times[i]!)
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? Infinity;
}

/** Appends rows as points of `series`, with a null point wherever a step is missing. */
function fill<R extends { t: number }, S extends { time: number[] }>(
  series: S,
  rows: R[],
  step: number | null,
  columns: { [K in keyof S]?: (row: R) => number | null },
) {
  const width = step ?? medianSpacing(rows.map((row) => row.t));
  const names = Object.keys(columns) as (keyof S)[];
  for (const row of rows) {
    const previous = series.time.at(-1);
    if (previous !== undefined && row.t - previous > GAP_FACTOR * width) {
      series.time.push(previous + width);
      for (const name of names) (series[name] as (number | null)[]).push(null);
    }
    series.time.push(row.t);
    for (const name of names) (series[name] as (number | null)[]).push(compact(columns[name]!(row)));
  }
}

function groupBy<R>(rows: R[], key: (row: R) => string): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

/** Reads and writes first, then flush and discard; busiest device first within an operation. */
const operationOrder = ["read", "write", "flush", "discard"];

/**
 * One series per device and operation with timed I/Os, each with its untimed I/Os (basis), and
 * one without percentiles for each that only has untimed I/Os in the range.
 */
export function buildLatencySeries(rows: LatencyRow[], bucketSeconds: number | null, basis: LatencyBasisRow[]): LatencySeries[] {
  const out: LatencySeries[] = [];
  const basisOf = new Map(basis.map((row) => [`${row.device}\u0000${row.operation}`, row]));
  for (const [key, group] of groupBy(rows, (row) => `${row.device}\u0000${row.operation}`)) {
    const { device, operation } = group[0]!;
    const merged = mergeLatencyBuckets(group.map((row) => row.buckets));
    const operations = group.reduce((sum, row) => sum + row.operations, 0);
    if (operations === 0) continue; // untimed I/Os alone, if any, are listed below
    const counted = basisOf.get(key);
    basisOf.delete(key);
    const sumSeconds = group.reduce((sum, row) => sum + row.sum_seconds, 0);
    const series: LatencySeries = {
      device,
      operation,
      time: [],
      p50Ms: [],
      p95Ms: [],
      p99Ms: [],
      summary: {
        operations,
        p50: describeLatencyPercentile(latencyPercentile(merged, 0.5)),
        p95: describeLatencyPercentile(latencyPercentile(merged, 0.95)),
        p99: describeLatencyPercentile(latencyPercentile(merged, 0.99)),
        averageMs: compact((1000 * sumSeconds) / operations),
      },
      untimed: describeUntimed(
        counted
          ? [counted]
          : [
              {
                device,
                operation,
                timed_operations: operations,
                counted_timed_operations: 0,
                untimed_operations: null,
                counted_untimed_operations: null,
              },
            ],
      ),
    };
    fill(series, group, bucketSeconds, {
      p50Ms: (row) => percentileEdgeMs(latencyPercentile(row.buckets, 0.5)),
      p95Ms: (row) => percentileEdgeMs(latencyPercentile(row.buckets, 0.95)),
      p99Ms: (row) => percentileEdgeMs(latencyPercentile(row.buckets, 0.99)),
    });
    out.push(series);
  }
  for (const row of basisOf.values()) {
    if (row.untimed_operations !== null && row.untimed_operations > 0) out.push(untimedOnlySeries(row));
  }
  return out.sort(
    (a, b) =>
      operationOrder.indexOf(a.operation) - operationOrder.indexOf(b.operation) ||
      b.summary.operations - a.summary.operations ||
      a.device.localeCompare(b.device),
  );
}

export function buildSplitIoSeries(rows: SplitRow[], bucketSeconds: number | null): SplitIoSeries[] {
  const out: SplitIoSeries[] = [];
  for (const group of groupBy(rows, (row) => row.device).values()) {
    const seconds = group.reduce((sum, row) => sum + row.interval_seconds, 0);
    const splits = group.reduce((sum, row) => sum + row.split_ops, 0);
    const series: SplitIoSeries = {
      device: group[0]!.device,
      time: [],
      splitIosPerSecond: [],
      averagePerSecond: seconds > 0 ? compact(splits / seconds) : null,
    };
    fill(series, group, bucketSeconds, {
      splitIosPerSecond: (row) => (row.interval_seconds > 0 ? row.split_ops / row.interval_seconds : null),
    });
    out.push(series);
  }
  return out.sort((a, b) => (b.averagePerSecond ?? 0) - (a.averagePerSecond ?? 0) || a.device.localeCompare(b.device));
}

export function buildCacheHitSeries(rows: PageCacheRow[], bucketSeconds: number | null): CacheHitSeries {
  const accesses = rows.reduce((sum, row) => sum + row.accesses, 0);
  const misses = rows.reduce((sum, row) => sum + row.misses, 0);
  const series: CacheHitSeries = { time: [], hitRatioPercent: [], overallPercent: compact(cacheHitRatioPercent(accesses, misses)) };
  fill(series, rows, bucketSeconds, { hitRatioPercent: (row) => cacheHitRatioPercent(row.accesses, row.misses) });
  return series;
}

export function buildDatabaseSeries(rows: DatabaseRow[], bucketSeconds: number | null): DatabaseSeries[] {
  const out: DatabaseSeries[] = [];
  for (const group of groupBy(rows, (row) => row.database).values()) {
    const total = (pick: (row: DatabaseRow) => number) => group.reduce((sum, row) => sum + pick(row), 0);
    const seconds = total((row) => row.interval_seconds);
    const series: DatabaseSeries = {
      database: group[0]!.database,
      time: [],
      transactionsPerSecond: [],
      bufferHitRatioPercent: [],
      overall: {
        transactionsPerSecond: seconds > 0 ? compact(total((row) => row.commits) / seconds) : null,
        rollbacksPerSecond: seconds > 0 ? compact(total((row) => row.rollbacks) / seconds) : null,
        bufferHitRatioPercent: compact(
          bufferHitRatioPercent(
            total((row) => row.blocks_hit),
            total((row) => row.blocks_read),
          ),
        ),
      },
    };
    fill(series, group, bucketSeconds, {
      transactionsPerSecond: (row) => (row.interval_seconds > 0 ? row.commits / row.interval_seconds : null),
      bufferHitRatioPercent: (row) => bufferHitRatioPercent(row.blocks_hit, row.blocks_read),
    });
    out.push(series);
  }
  return out.sort(
    (a, b) => (b.overall.transactionsPerSecond ?? 0) - (a.overall.transactionsPerSecond ?? 0) || a.database.localeCompare(b.database),
  );
}

/** Batch requests per second, mean buffer hit ratio and mean page life expectancy per instance. */
export function buildSqlServerSeries(rows: SqlServerRow[], bucketSeconds: number | null): SqlServerSeries[] {
  const rate = (batches: number | null, seconds: number | null) => (batches !== null && seconds ? batches / seconds : null);
  const ratio = (sum: number | null, samples: number) => (sum !== null && samples > 0 ? (sum / samples) * 100 : null);
  const out: SqlServerSeries[] = [];
  for (const group of groupBy(rows, (row) => row.instance).values()) {
    const total = (pick: (row: SqlServerRow) => number | null) => {
      const measured = group.map(pick).filter((v): v is number => v !== null);
      return measured.length ? measured.reduce((sum, v) => sum + v, 0) : null;
    };
    const samples = total((row) => row.samples) ?? 0;
    const series: SqlServerSeries = {
      instance: group[0]!.instance,
      time: [],
      batchRequestsPerSecond: [],
      bufferHitRatioPercent: [],
      pageLifeExpectancySeconds: [],
      overall: {
        batchRequestsPerSecond: compact(
          rate(
            total((row) => row.batch_requests),
            total((row) => row.batch_seconds),
          ),
        ),
        bufferHitRatioPercent: compact(
          ratio(
            total((row) => row.hit_ratio_sum),
            total((row) => row.hit_ratio_samples) ?? 0,
          ),
        ),
        pageLifeExpectancySeconds: samples > 0 ? compact((total((row) => row.page_life_sum) ?? 0) / samples) : null,
      },
    };
    fill(series, group, bucketSeconds, {
      batchRequestsPerSecond: (row) => rate(row.batch_requests, row.batch_seconds),
      bufferHitRatioPercent: (row) => ratio(row.hit_ratio_sum, row.hit_ratio_samples),
      pageLifeExpectancySeconds: (row) => (row.samples > 0 ? row.page_life_sum / row.samples : null),
    });
    out.push(series);
  }
  return out.sort((a, b) => a.instance.localeCompare(b.instance));
}
