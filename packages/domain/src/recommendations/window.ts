const hourMs = 3600_000;

/** "the last 7 days", "the last 3 hours": a window's length, for prediction sentences. */
export function describeWindow(from: Date, to: Date): string {
  const hours = (to.getTime() - from.getTime()) / hourMs;
  const plural = (count: number, unit: string) => `the last ${count === 1 ? unit : `${count} ${unit}s`}`;
  if (hours >= 36) return plural(Math.round(hours / 24), "day");
  if (hours >= 1.5) return plural(Math.round(hours), "hour");
  return plural(Math.max(1, Math.round(hours * 60)), "minute");
}
