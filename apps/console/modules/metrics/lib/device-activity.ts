import type { DeviceSeries } from "../types/metrics";

/** Operations per second summed over the range: how busy a device was, for ordering. */
function totalIops(series: DeviceSeries): number {
  let total = 0;
  for (let i = 0; i < series.time.length; i++) total += (series.readIops[i] ?? 0) + (series.writeIops[i] ?? 0);
  return total;
}

/**
 * Splits devices into those that did I/O in the range, busiest first, and idle ones (loop
 * devices, spare disks), which the page folds away so that the disks that matter come first.
 */
export function partitionByActivity(devices: DeviceSeries[]): { active: DeviceSeries[]; idle: DeviceSeries[] } {
  const withTotals = devices.map((series) => ({ series, total: totalIops(series) }));
  return {
    active: withTotals
      .filter((d) => d.total > 0)
      .sort((a, b) => b.total - a.total || a.series.device.localeCompare(b.series.device))
      .map((d) => d.series),
    idle: withTotals
      .filter((d) => d.total === 0)
      .map((d) => d.series)
      .sort((a, b) => a.device.localeCompare(b.device)),
  };
}
