// Turns SQL rows into the compact columnar arrays the charts draw. Where data is missing (agent
// stopped, server down) a null point is inserted so the chart shows a gap instead of a straight
// line bridging the outage.
import { deriveDiskIo, diskIoRateSeries, type DiskIoRateName } from "@spindle/domain";
import type { DeviceSeries, MemorySeries } from "../types/metrics";
import type { DiskBucketRow, MemoryBucketRow } from "./series-sql";

/** A point more than 1.5 steps after the previous one means at least one step is missing. */
const GAP_FACTOR = 1.5;

/** Four significant digits: plenty for a chart, and it keeps a week of series small. */
export function compact(value: number | null): number | null {
  return value === null || !Number.isFinite(value) ? null : Number(value.toPrecision(4));
}

function emptyDevice(device: string): DeviceSeries {
  const series = { device, time: [] as number[] } as DeviceSeries;
  for (const { name } of diskIoRateSeries) series[name] = [];
  return series;
}

function pushGap<S extends { time: number[] }>(series: S, at: number, names: readonly (keyof S)[]) {
  series.time.push(at);
  for (const name of names) (series[name] as (number | null)[]).push(null);
}

/** Rows in time order per device (any interleaving of devices); series come back by device name. */
export function buildDeviceSeries(rows: DiskBucketRow[], bucketSeconds: number | null): DeviceSeries[] {
  const byDevice = new Map<string, DeviceSeries>();
  const rateNames: DiskIoRateName[] = diskIoRateSeries.map(({ name }) => name);
  for (const row of rows) {
    let series = byDevice.get(row.device);
    if (!series) byDevice.set(row.device, (series = emptyDevice(row.device)));
    const step = bucketSeconds ?? row.interval_seconds;
    const previous = series.time.at(-1);
    if (previous !== undefined && row.t - previous > GAP_FACTOR * step) pushGap(series, previous + step, rateNames);
    const rates = deriveDiskIo({
      intervalSeconds: row.interval_seconds,
      readOps: row.read_ops,
      writeOps: row.write_ops,
      readBytes: row.read_bytes,
      writeBytes: row.write_bytes,
      readTimeMs: row.read_time_ms,
      writeTimeMs: row.write_time_ms,
      ioTimeMs: row.io_time_ms,
      weightedIoTimeMs: row.weighted_io_time_ms,
    });
    series.time.push(row.t);
    for (const name of rateNames) series[name].push(compact(rates[name]));
  }
  return [...byDevice.values()].sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0));
}

function medianSpacing(times: number[]): number {
  const gaps = times.slice(1).map((t, i) => t - times[i]!).sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? Infinity;
}

/** Not measured stays null (a gap on the chart); Math.round(null) would draw it as 0. */
function wholeBytes(value: number | null): number | null {
  return value === null ? null : Math.round(value);
}

export function buildMemorySeries(rows: MemoryBucketRow[], bucketSeconds: number | null): MemorySeries {
  const memory: MemorySeries = { time: [], totalBytes: [], availableBytes: [], cachedBytes: [], dirtyBytes: [] };
  const names = ["totalBytes", "availableBytes", "cachedBytes", "dirtyBytes"] as const;
  // Raw memory rows carry no interval: the typical spacing of the samples stands in for it.
  const step = bucketSeconds ?? medianSpacing(rows.map((row) => row.t));
  for (const row of rows) {
    const previous = memory.time.at(-1);
    if (previous !== undefined && row.t - previous > GAP_FACTOR * step) pushGap(memory, previous + step, names);
    memory.time.push(row.t);
    memory.totalBytes.push(wholeBytes(row.total_bytes));
    memory.availableBytes.push(wholeBytes(row.available_bytes));
    memory.cachedBytes.push(wholeBytes(row.cached_bytes));
    memory.dirtyBytes.push(wholeBytes(row.dirty_bytes));
  }
  return memory;
}
