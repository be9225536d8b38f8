// What a guard reports about a wave: a reading with its status, one sentence a person can act
// on, the basis it rests on (what was measured, where, how much of it) and, for the comparison
// against the servers not yet changed, the interval. Stored as JSON per wave and shown on the
// rollout page; the wave's decision is made from these readings alone.
import { z } from "zod";

export const guardKeys = [
  "failed",
  "offline",
  "apply_timeout",
  "backoffs",
  "p99_read_latency",
  "p99_write_latency",
  "comparative",
] as const;
export type GuardKey = (typeof guardKeys)[number];

/** Each guard's name as the console and the pause and hold reasons show it. */
export const guardLabels: Record<GuardKey, string> = {
  failed: "Refused (FAILED)",
  offline: "Agents offline",
  apply_timeout: "Confirmations",
  backoffs: "Read-cache backoffs",
  p99_read_latency: "p99 read latency",
  p99_write_latency: "p99 write latency",
  comparative: "Against servers not yet changed",
};

/**
 * pass: measured and within the threshold. trip: a regression, the wave rolls back.
 * not-enough-data: measurable, but too little was measured to decide: the wave holds.
 * not-measured: nothing on these servers measures it (a missing capability); shown, never a 0,
 * and it neither passes nor holds the wave by itself.
 */
export const guardStatuses = ["pass", "trip", "not-enough-data", "not-measured"] as const;
export type GuardStatus = (typeof guardStatuses)[number];

export const guardReadingSchema = z.strictObject({
  guard: z.enum(guardKeys),
  status: z.enum(guardStatuses),
  /** One sentence with the numbers: "p99 read latency of sdb on db-3 rose from ≤ 2.048 ms to ≤ 8.192 ms". */
  summary: z.string().min(1).max(2000),
  /** What the reading rests on: sources, windows, counts. */
  basis: z.string().min(1).max(2000),
  /** Servers the reading is about (the offenders of a trip, the ones too quiet to judge). */
  servers: z
    .array(z.strictObject({ serverId: z.string(), hostname: z.string(), detail: z.string().max(1000) }))
    .max(200)
    .default([]),
  /** For comparisons: one line per metric. */
  metrics: z
    .array(
      z.strictObject({
        key: z.string(),
        label: z.string(),
        status: z.enum(guardStatuses),
        /** Treated change minus control change, as read (a fraction on the relative scale: 0.12 = +12 %). */
        change: z.number().nullable(),
        interval: z.strictObject({ low: z.number(), high: z.number(), confidence: z.number() }).nullable(),
        scale: z.enum(["relative", "absolute"]).nullable(),
        pValue: z.number().nullable(),
        tolerance: z.number().nullable(),
        treated: z.int().nonnegative(),
        control: z.int().nonnegative(),
        detail: z.string().max(2000),
      }),
    )
    .max(20)
    .default([]),
});
export type GuardReading = z.infer<typeof guardReadingSchema>;
export type GuardReadingInput = z.input<typeof guardReadingSchema>;

export type WaveDecision =
  | { outcome: "trip"; reason: string; guards: GuardKey[] }
  | { outcome: "hold"; reason: string; guards: GuardKey[] }
  | { outcome: "pass" };

/**
 * A trip wins over everything (a regression rolls back even when another guard lacks data); then
 * any guard short of data holds the wave; a wave passes only when the comparison against the
 * servers not yet changed was actually made, so a wave never passes on no evidence at all.
 */
export function decideWave(readings: readonly GuardReading[]): WaveDecision {
  const trips = readings.filter((reading) => reading.status === "trip");
  if (trips.length > 0)
    return { outcome: "trip", reason: trips.map((reading) => reading.summary).join(" "), guards: trips.map((reading) => reading.guard) };
  const short = readings.filter((reading) => reading.status === "not-enough-data");
  if (short.length > 0)
    return {
      outcome: "hold",
      reason: `Not enough data: ${short.map((reading) => reading.summary).join(" ")}`,
      guards: short.map((reading) => reading.guard),
    };
  const comparative = readings.find((reading) => reading.guard === "comparative");
  if (comparative?.status !== "pass") {
    return {
      outcome: "hold",
      reason: "Not enough data: no metric could be compared with the servers not yet changed, so the wave cannot be judged.",
      guards: ["comparative"],
    };
  }
  return { outcome: "pass" };
}

/**
 * A reading as one sentence for a pause or hold reason: the guard by name, what it read and, for
 * a comparison that tripped, each metric that tripped with its change and interval.
 */
export function describeGuardReading(reading: GuardReading): string {
  const tripped = reading.status === "trip" ? reading.metrics.filter((metric) => metric.status === "trip") : [];
  return `${guardLabels[reading.guard]}: ${reading.summary}${tripped.map((metric) => ` ${metric.label}: ${metric.detail}.`).join("")}`;
}
