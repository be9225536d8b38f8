// The window a server's time charts span: a preset ending now (or at `to`, around an alert), or
// any custom window (a drag-zoom, the custom range form, a shared link). Whatever its span, it
// reads the table whose points fit: raw 10 s samples up to 3 h (≤ 1,080 points per device),
// 1-minute buckets up to 2 days (≤ 2,880), 1-hour buckets beyond; a window older than a
// table's retention (raw 30 days, 1-minute 90 days: docs/metrics.md) reads the next coarser one.
import { z } from "zod";
import { metricsRangeSchema, type MetricsRange } from "../types/metrics";
import { rangeSources, type RangeSource } from "./range-source";

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** The shortest window: six raw samples. A drag narrower than this is a click, not a zoom. */
export const MIN_WINDOW_MS = minute;
/** The longest custom window: the 1-hour aggregates keep two years; more would be thousands of points. */
export const MAX_WINDOW_DAYS = 400;

const retention = { raw: 30 * day, minute: 90 * day };

export interface ChartWindow {
  /** The preset asked for, or "custom". */
  range: MetricsRange | "custom";
  from: Date;
  to: Date;
  source: RangeSource;
}

const iso = (name: string) =>
  z.iso.datetime({ offset: true, message: `${name} is an ISO 8601 time with an offset, e.g. 2026-11-23T10:00:00Z` });

/**
 * The chart query of the server page and its APIs: `range` (a preset, default 1h) ending now or
 * at `to`, or a custom window `from` … `to` (`to` defaults to now). Bad windows are refused
 * with what to send instead.
 */
export const chartWindowQuerySchema = z
  .object({
    range: z.enum([...metricsRangeSchema.options, "custom"], { error: () => "range is one of: 1h, 24h, 7d, custom" }).optional(),
    from: iso("from").optional(),
    to: iso("to").optional(),
  })
  .superRefine((query, context) => {
    if (query.from === undefined) {
      if (query.range === "custom")
        context.addIssue({ code: "custom", path: ["from"], message: "range=custom needs from (and to, or now)" });
      return;
    }
    if (query.range !== undefined && query.range !== "custom") {
      context.addIssue({
        code: "custom",
        path: ["range"],
        message: `from goes with a custom window, not with range=${query.range}: leave range out`,
      });
      return;
    }
    const from = Date.parse(query.from);
    const to = query.to === undefined ? Date.now() : Date.parse(query.to);
    if (from >= to) context.addIssue({ code: "custom", path: ["from"], message: "from must be before to" });
    else if (to - from < MIN_WINDOW_MS) context.addIssue({ code: "custom", path: ["to"], message: "a window spans at least 1 minute" });
    else if (to - from > MAX_WINDOW_DAYS * day)
      context.addIssue({ code: "custom", path: ["from"], message: `a window spans at most ${MAX_WINDOW_DAYS} days` });
    if (from > Date.now())
      context.addIssue({ code: "custom", path: ["from"], message: "from is in the future: there is nothing to draw yet" });
  });
export type ChartWindowQuery = z.infer<typeof chartWindowQuerySchema>;

/** The source that draws a custom window with a readable number of points and still holds its start. */
export function sourceForWindow(from: Date, to: Date, now: Date): RangeSource {
  const span = to.getTime() - from.getTime();
  const age = now.getTime() - from.getTime();
  if (span <= 3 * hour && age < retention.raw) return { ...rangeSources["1h"], seconds: span / 1000 };
  if (span <= 2 * day && age < retention.minute) return { ...rangeSources["24h"], seconds: span / 1000 };
  return { ...rangeSources["7d"], seconds: span / 1000 };
}

/** A preset ending at `end`. */
export function presetWindow(range: MetricsRange, end: Date): ChartWindow {
  const source = rangeSources[range];
  return { range, from: new Date(end.getTime() - source.seconds * 1000), to: end, source };
}

/** The window a validated query asks for; a `to` later than now means now. */
export function resolveChartWindow(query: ChartWindowQuery, now = new Date()): ChartWindow {
  const to = query.to === undefined ? now : new Date(Math.min(Date.parse(query.to), now.getTime()));
  if (query.from === undefined) return presetWindow(query.range === undefined || query.range === "custom" ? "1h" : query.range, to);
  const from = new Date(Date.parse(query.from));
  return { range: "custom", from, to, source: sourceForWindow(from, to, now) };
}

/** A window named by its preset (the tests' and benchmarks' shorthand) or given whole. */
export function asChartWindow(window: MetricsRange | ChartWindow, now: Date): ChartWindow {
  return typeof window === "string" ? presetWindow(window, now) : window;
}
