// The link from an alert to its server's charts around the event: the finest range whose source
// still holds the event (raw rows 30 days, 1-minute buckets 90 days, docs/metrics.md), with the
// event in the middle of the window, or at the right edge when that would be in the future.
import { z } from "zod";
import { metricsRangeSchema, type MetricsRange } from "@/modules/metrics/types/metrics";
import { rangeSources } from "@/modules/metrics/lib/range-source";

const day = 86_400_000;
const kept: [MetricsRange, number][] = [["1h", 30 * day], ["24h", 90 * day], ["7d", Infinity]];

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

/** What the server page accepts from that link; anything else shows the live charts. */
export const chartFocusSchema = z.object({
  range: metricsRangeSchema,
  to: z.iso.datetime({ offset: true }),
  at: z.iso.datetime({ offset: true }),
});
export type ChartFocus = z.infer<typeof chartFocusSchema>;

// Notifications (@spindle/notify) link with the hour either side of the event: ?from=…&to=….
const notificationLinkSchema = z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }) });

/** The window a server page link asks for, from either link shape; null shows the live charts. */
export function parseChartFocus(searchParams: Record<string, string | string[] | undefined>, now = new Date()): ChartFocus | null {
  const focus = chartFocusSchema.safeParse(searchParams);
  if (focus.success) return focus.data;
  const link = notificationLinkSchema.safeParse(searchParams);
  if (!link.success || Date.parse(link.data.from) >= Date.parse(link.data.to)) return null;
  const at = new Date((Date.parse(link.data.from) + Date.parse(link.data.to)) / 2);
  const { range, to } = chartWindowAround(at, now);
  return { range, to: to.toISOString(), at: at.toISOString() };
}
