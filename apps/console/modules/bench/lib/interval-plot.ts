// Geometry of the report's interval plot: one row per step (and the overall change), each change
// drawn as its interval with the estimate on it, against a line at 0. A row whose interval
// crosses that line is "no measurable difference"; a row without an interval is named, not drawn.
import type { Difference } from "../types/bench";

export interface IntervalRow {
  key: string;
  label: string;
  difference: Difference;
}

export interface PlotRow extends IntervalRow {
  y: number;
  /** Pixel ends of the interval and the estimate; null when there is no interval to draw. */
  x1: number | null;
  x2: number | null;
  xEstimate: number | null;
}

export interface IntervalPlot {
  width: number;
  height: number;
  left: number;
  right: number;
  zeroX: number;
  ticks: { value: number; x: number }[];
  rows: PlotRow[];
}

export const plotLayout = { width: 560, labelWidth: 150, rightMargin: 16, rowHeight: 26, top: 8, axisHeight: 28 } as const;

/** A tick step of 1, 2 or 5 × 10^k putting at most four ticks on the wider side of 0. */
export function tickStep(extent: number): number {
  const raw = extent / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? 10 * power);
}

export function intervalPlot(rows: IntervalRow[]): IntervalPlot {
  const { width, labelWidth, rightMargin, rowHeight, top, axisHeight } = plotLayout;
  const ends = rows.flatMap(({ difference: d }) => (d.status === "not-measured" ? [] : [d.lowPercent ?? 0, d.highPercent ?? 0]));
  // symmetric around 0, so left of the line is always "less" and the eye compares both sides
  const wanted = Math.max(5, ...ends.map((v) => Math.abs(v)).filter(Number.isFinite));
  const step = tickStep(wanted);
  const extent = Math.ceil((wanted * 1.05) / step) * step;
  const left = labelWidth;
  const right = width - rightMargin;
  const x = (value: number) => left + ((value + extent) / (2 * extent)) * (right - left);
  const ticks = [];
  for (let value = -extent; value <= extent + step / 2; value += step) ticks.push({ value: Math.round(value * 1e9) / 1e9, x: x(value) });
  return {
    width, height: top + rows.length * rowHeight + axisHeight, left, right, zeroX: x(0), ticks,
    rows: rows.map((row, i) => {
      const d = row.difference;
      const drawn = d.status !== "not-measured" && d.lowPercent !== null && d.highPercent !== null && d.percent !== null;
      return { ...row, y: top + i * rowHeight + rowHeight / 2,
        x1: drawn ? x(d.lowPercent ?? 0) : null, x2: drawn ? x(d.highPercent ?? 0) : null, xEstimate: drawn ? x(d.percent ?? 0) : null };
    }),
  };
}
