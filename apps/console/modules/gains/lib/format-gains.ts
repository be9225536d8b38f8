// How gains figures read on the page and in hover text.
import { formatBytes, formatNumber } from "@/lib/format";

/** 2.3 µs, 4.1 ms, 25 s, 1.5 h: a duration at the scale it is read in. */
export function formatDuration(seconds: number): string {
  const magnitude = Math.abs(seconds);
  if (magnitude === 0) return "0 s";
  if (magnitude < 1e-3) return `${Number((seconds * 1e6).toPrecision(3))} µs`;
  if (magnitude < 1) return `${Number((seconds * 1e3).toPrecision(3))} ms`;
  if (magnitude < 120) return `${Number(seconds.toPrecision(3))} s`;
  if (magnitude < 7200) return `${Number((seconds / 60).toPrecision(3))} min`;
  return `${Number((seconds / 3600).toPrecision(3))} h`;
}

export function formatPercent(share: number): string {
  return `${Number((share * 100).toPrecision(3))} %`;
}

/** A ledger value in its unit: By → bytes, s → a duration, {io}/{extent}/{file} → a count with its noun. */
export function formatInUnit(value: number, unit: string): string {
  switch (unit) {
    case "By":
      return formatBytes(value);
    case "s":
      return formatDuration(value);
    case "{io}":
      return `${formatNumber(value)} reads`;
    case "{extent}":
      return `${formatNumber(value)} extents`;
    case "{file}":
      return `${formatNumber(value)} files`;
    case "1":
      return Number(value.toPrecision(3)).toString();
    default:
      return `${formatNumber(value)} ${unit}`;
  }
}
