// One server-wide series from a server's per-device series (modules/metrics), for the
// comparison. Devices of one server share their sample times (one sample, one row each). A
// point where no device measured the figure stays null (a gap), never 0.
import type { DeviceSeries, MemorySeries } from "@/modules/metrics/types/metrics";
import type { ComparisonMetric } from "../types/comparison";

type Rate = Exclude<keyof DeviceSeries, "device" | "time">;

const sums: Partial<Record<ComparisonMetric, Rate>> = {
  readIops: "readIops",
  writeIops: "writeIops",
  readThroughput: "readMegabytesPerSecond",
  writeThroughput: "writeMegabytesPerSecond",
  queueDepth: "queueDepth",
};
const weighted: Partial<Record<ComparisonMetric, { value: Rate; weight: Rate }>> = {
  readLatency: { value: "readLatencyMs", weight: "readIops" },
  writeLatency: { value: "writeLatencyMs", weight: "writeIops" },
};

export function combineDevices(
  metric: ComparisonMetric,
  devices: readonly DeviceSeries[],
  memory: MemorySeries,
): { time: number[]; values: (number | null)[] } {
  if (metric === "memoryAvailable") return { time: memory.time, values: memory.availableBytes };
  const byTime = new Map<number, { total: number | null; weight: number }>();
  for (const device of devices) {
    device.time.forEach((t, i) => {
      const point = byTime.get(t) ?? { total: null, weight: 0 };
      byTime.set(t, point);
      const sum = sums[metric];
      const mean = weighted[metric];
      if (sum) {
        const value = device[sum][i];
        if (value !== null && value !== undefined) point.total = (point.total ?? 0) + value;
      } else if (mean) {
        const value = device[mean.value][i];
        const weight = device[mean.weight][i];
        if (value !== null && value !== undefined && weight !== null && weight !== undefined && weight > 0) {
          point.total = (point.total ?? 0) + value * weight;
          point.weight += weight;
        }
      } else {
        const value = device.utilisationPercent[i];
        if (value !== null && value !== undefined) point.total = Math.max(point.total ?? 0, value);
      }
    });
  }
  const time = [...byTime.keys()].sort((a, b) => a - b);
  const values = time.map((t) => {
    const point = byTime.get(t)!;
    if (weighted[metric]) return point.weight > 0 ? point.total! / point.weight : null;
    return point.total;
  });
  return { time, values };
}
