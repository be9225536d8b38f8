// Turns the database's buckets into the compact columnar arrays the charts draw. Where data is
// missing (agent stopped, server down) a null point is inserted so the chart shows a gap instead
// of a straight line bridging the outage.
import { deriveDiskIo, diskIoRateSeries, type DiskIoRateName } from "@spindle/domain";
import type { DeviceSeries, MemorySeries } from "../types/metrics";
import type { DiskBucketSums, MemoryBucket } from "./series-sql";

/** A point more than 1.5 steps after the previous one means at least one step is missing. */
const GAP_FACTOR = 1.5;

/** 10^n for n in -308..308, parsed from literals: exact up to 10^22, Math.pow is neither exact nor fast. */
const powersOfTen = Array.from({ length: 2 * 308 + 1 }, (_, i) => Number(`1e${i - 308}`));
const tenTo = (n: number) => powersOfTen[n + 308]!;

/**
 * Four significant digits: plenty for a chart, and it keeps a week of series small. The same
 * numbers as Number(value.toPrecision(4)) (columnar.test.ts holds them to it) in arithmetic: a
 * 24 h chart rounds some 46,000 values, and formatting each as a string, or computing powers of
 * ten with Math.pow, cost more CPU than the database spent finding them (docs/benchmarks.md,
 * "Console at fleet scale").
 */
export function compact(value: number | null): number | null {
  if (value === null || !Number.isFinite(value)) return null;
  const size = Math.abs(value);
  if (size === 0) return 0;
  let exponent = Math.floor(Math.log10(size));
  // Scaling to four digits below multiplies or divides by 10^|exponent - 3|, which is exact
  // (so the product or quotient correctly rounded) only up to 10^22: values that far out, never
  // a disk rate, take the exact path.
  if (exponent < -18 || exponent > 25) return Number(value.toPrecision(4));
  if (tenTo(exponent) > size) exponent -= 1; // log10 of a value just under a power of ten can round up
  const large = exponent >= 3;
  const factor = tenTo(large ? exponent - 3 : 3 - exponent);
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

/** One series per device (its buckets in time order), by device name, gaps as null points. */
export function buildDeviceSeries(
  devices: readonly { device: string; buckets: DiskBucketSums[] }[],
  bucketSeconds: number | null,
): DeviceSeries[] {
  const rateNames: DiskIoRateName[] = diskIoRateSeries.map(({ name }) => name);
  const all = devices.map(({ device, buckets }) => {
    const series = emptyDevice(device);
    for (const [
      t,
      intervalSeconds,
      readOps,
      writeOps,
      readBytes,
      writeBytes,
      readTimeMs,
      writeTimeMs,
      ioTimeMs,
      weightedIoTimeMs,
    ] of buckets) {
      const step = bucketSeconds ?? intervalSeconds;
      const previous = series.time.at(-1);
      if (previous !== undefined && t - previous > GAP_FACTOR * step) pushGap(series, previous + step, rateNames);
      const rates = deriveDiskIo({
        intervalSeconds,
        readOps,
        writeOps,
        readBytes,
        writeBytes,
        readTimeMs,
        writeTimeMs,
        ioTimeMs,
        weightedIoTimeMs,
      });
      series.time.push(t);
      for (const name of rateNames) series[name].push(compact(rates[name]));
    }
    return series;
  });
  return all.sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0));
}

function medianSpacing(times: number[]): number {
  const gaps = times
    .slice(1)
    .map((t, i) => t - times[i]!)
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)] ?? Infinity;
}

/** Not measured stays null (a gap on the chart); Math.round(null) would draw it as 0. */
function wholeBytes(value: number | null): number | null {
  return value === null ? null : Math.round(value);
}

export function buildMemorySeries(buckets: readonly MemoryBucket[], bucketSeconds: number | null): MemorySeries {
  const memory: MemorySeries = { time: [], totalBytes: [], availableBytes: [], cachedBytes: [], dirtyBytes: [] };
  const names = ["totalBytes", "availableBytes", "cachedBytes", "dirtyBytes"] as const;
  // Raw memory rows carry no interval: the typical spacing of the samples stands in for it.
  const step = bucketSeconds ?? medianSpacing(buckets.map(([t]) => t));
  for (const [t, totalBytes, availableBytes, cachedBytes, dirtyBytes] of buckets) {
    const previous = memory.time.at(-1);
    if (previous !== undefined && t - previous > GAP_FACTOR * step) pushGap(memory, previous + step, names);
    memory.time.push(t);
    memory.totalBytes.push(wholeBytes(totalBytes));
    memory.availableBytes.push(wholeBytes(availableBytes));
    memory.cachedBytes.push(wholeBytes(cachedBytes));
    memory.dirtyBytes.push(wholeBytes(dirtyBytes));
  }
  return memory;
}
