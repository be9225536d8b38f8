// Turns the database's bucket columns into the compact columnar arrays the charts draw. Where data is missing (agent
// stopped, server down) a null point is inserted so the chart shows a gap instead of a straight
// line bridging the outage.
import { deriveDiskIo, diskIoRateSeries, type DiskIoRateName } from "@spindle/domain";
import type { DeviceSeries, MemorySeries } from "../types/metrics";
import type { DiskSumColumns, MemoryColumns } from "./series-sql";

/** A point more than 1.5 steps after the previous one means at least one step is missing. */
const GAP_FACTOR = 1.5;

/**
 * Four significant digits: plenty for a chart, and it keeps a week of series small. The same
 * numbers as Number(value.toPrecision(4)) (columnar.test.ts holds them to it) in arithmetic: a
 * 24 h chart rounds some 50,000 values, and formatting each as a string cost about as much CPU
 * as the database spent finding them (docs/benchmarks.md, "Console at fleet scale").
 */
export function compact(value: number | null): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const size = Math.abs(value);
  if (size === 0) return 0;
  let exponent = Math.floor(Math.log10(size));
  if (10 ** exponent > size) exponent -= 1; // log10 of a value just under a power of ten can round up
  if (exponent < -290 || exponent > 290) return Number(value.toPrecision(4)); // powers of ten beyond double range
  // Scaled by an exact integer power of ten either way, so each product or quotient is correctly rounded.
  const large = exponent >= 3;
  const factor = 10 ** Math.abs(exponent - 3);
  const scaled = large ? size / factor : size * factor;
  // Near a half the scaling's own rounding may tip the result; the exact decimal decides there.
  if (Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6) return Number(value.toPrecision(4));
  const digits = Math.round(scaled);
  const rounded = large ? digits * factor : digits / factor;
  return value < 0 ? -rounded : rounded;
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

/** One series per device (bucket sums in time order, columnar), by device name, gaps as null points. */
export function buildDeviceSeries(devices: readonly { device: string; sums: DiskSumColumns }[], bucketSeconds: number | null): DeviceSeries[] {
  const rateNames: DiskIoRateName[] = diskIoRateSeries.map(({ name }) => name);
  const all = devices.map(({ device, sums }) => {
    const series = emptyDevice(device);
    for (let i = 0; i < sums.t.length; i++) {
      const t = sums.t[i]!;
      const intervalSeconds = sums.interval_seconds[i]!;
      const step = bucketSeconds ?? intervalSeconds;
      const previous = series.time.at(-1);
      if (previous !== undefined && t - previous > GAP_FACTOR * step) pushGap(series, previous + step, rateNames);
      const rates = deriveDiskIo({
        intervalSeconds,
        readOps: sums.read_ops[i] ?? null,
        writeOps: sums.write_ops[i] ?? null,
        readBytes: sums.read_bytes[i] ?? null,
        writeBytes: sums.write_bytes[i] ?? null,
        readTimeMs: sums.read_time_ms[i] ?? null,
        writeTimeMs: sums.write_time_ms[i] ?? null,
        ioTimeMs: sums.io_time_ms[i] ?? null,
        weightedIoTimeMs: sums.weighted_io_time_ms[i] ?? null,
      });
      series.time.push(t);
      for (const name of rateNames) series[name].push(compact(rates[name]));
    }
    return series;
  });
  return all.sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0));
}

function medianSpacing(times: number[]): number {
  const gaps = times.slice(1).map((t, i) => t - times[i]!).sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? Infinity;
}

/** Not measured stays null (a gap on the chart); Math.round(null) would draw it as 0. */
function wholeBytes(value: number | null): number | null {
  return value === null ? null : Math.round(value);
}

export function buildMemorySeries(gauges: MemoryColumns | null, bucketSeconds: number | null): MemorySeries {
  const memory: MemorySeries = { time: [], totalBytes: [], availableBytes: [], cachedBytes: [], dirtyBytes: [] };
  if (gauges === null) return memory;
  const names = ["totalBytes", "availableBytes", "cachedBytes", "dirtyBytes"] as const;
  // Raw memory rows carry no interval: the typical spacing of the samples stands in for it.
  const step = bucketSeconds ?? medianSpacing(gauges.t);
  for (let i = 0; i < gauges.t.length; i++) {
    const t = gauges.t[i]!;
    const previous = memory.time.at(-1);
    if (previous !== undefined && t - previous > GAP_FACTOR * step) pushGap(memory, previous + step, names);
    memory.time.push(t);
    memory.totalBytes.push(wholeBytes(gauges.total_bytes[i] ?? null));
    memory.availableBytes.push(wholeBytes(gauges.available_bytes[i] ?? null));
    memory.cachedBytes.push(wholeBytes(gauges.cached_bytes[i] ?? null));
    memory.dirtyBytes.push(wholeBytes(gauges.dirty_bytes[i] ?? null));
  }
  return memory;
}
