// The link from an alert to its server's charts around the event: the finest range whose source
// still holds the event (raw rows 30 days, 1-minute buckets 90 days, docs/metrics.md), with the
// event in the middle of the window, or at the right edge when that would be in the future. The
// server page reads it (modules/metrics/lib/window-selection.ts) as it reads a notification's
// `?from=…&to=…` link, a custom window around the event.
import type { MetricsRange } from "@/modules/metrics/types/metrics";
import { rangeSources } from "@/modules/metrics/lib/range-source";

const day = 86_400_000;
const kept: [MetricsRange, number][] = [
  ["1h", 30 * day],
  ["24h", 90 * day],
  ["7d", Infinity],
];

export function chartWindowAround(at: Date, now = new Date()): { range: MetricsRange; to: Date } {
  const age = now.getTime() - at.getTime();
  const range = kept.find(([, keptFor]) => age < keptFor - day)?.[0] ?? "7d";
  const half = (rangeSources[range].seconds * 1000) / 2;
  return { range, to: new Date(Math.min(at.getTime() + half, now.getTime())) };
}

export function chartLinkForAlert(serverId: string, at: string, now = new Date()): string {
  const { range, to } = chartWindowAround(new Date(at), now);
  const query = new URLSearchParams({ range, to: to.toISOString(), at });
  return `/servers/${serverId}?${query}`;
}
