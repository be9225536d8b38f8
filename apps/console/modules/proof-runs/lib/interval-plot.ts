// Geometry of the report's interval plot: one row per step (and the overall change), each change
// drawn as its interval with the estimate on it, against a line at 0. A row whose interval
// crosses that line is "no measurable difference"; a row without an interval is named, not drawn.
import type { Difference } from "../types/proof-run";

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
  /** An end beyond the axis is drawn at its edge with an arrow: the text states the figure. */
  clippedLow: boolean;
  clippedHigh: boolean;
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

export const plotLayout = { width: 560, labelWidth: 150, rightMargin: 30, rowHeight: 26, top: 8, axisHeight: 28 } as const;

/** Far ends of intervals beyond ±maxExtent % are clipped: a few passes can give an upper end of +10,000 %, which would flatten the rest. */
export const maxExtent = 100;

/** A tick step of 1, 2 or 5 × 10^k putting at most four ticks on the wider side of 0. */
export function tickStep(extent: number): number {
  const raw = extent / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? 10 * power;
}

export function intervalPlot(rows: IntervalRow[]): IntervalPlot {
  const { width, labelWidth, rightMargin, rowHeight, top, axisHeight } = plotLayout;
  const drawn = rows.map((row) => row.difference).filter((d) => d.status !== "not-measured");
  const size = (values: (number | null)[]) => Math.max(0, ...values.map((v) => Math.abs(v ?? 0)).filter(Number.isFinite));
  // Every estimate and the nearer end of every interval stay on the axis; the far ends only up
  // to ±maxExtent (or the estimates' reach), beyond which they run off as arrows. Symmetric
  // around 0, so left of the line is always "less" and the eye compares both sides.
  const core = Math.max(
    5,
    size(drawn.map((d) => d.percent)) * 1.1,
    size(drawn.map((d) => (Math.abs(d.lowPercent ?? 0) < Math.abs(d.highPercent ?? 0) ? d.lowPercent : d.highPercent))),
  );
  const wanted = Math.max(core, Math.min(size(drawn.flatMap((d) => [d.lowPercent, d.highPercent])), maxExtent));
  const step = tickStep(wanted);
  const extent = wanted === maxExtent ? maxExtent : Math.ceil((wanted * 1.05) / step) * step;
  const left = labelWidth;
  const right = width - rightMargin;
  const x = (value: number) => left + ((Math.max(-extent, Math.min(extent, value)) + extent) / (2 * extent)) * (right - left);
  const ticks = [];
  for (let value = -extent; value <= extent + step / 2; value += step) ticks.push({ value: Math.round(value * 1e9) / 1e9, x: x(value) });
  return {
    width,
    height: top + rows.length * rowHeight + axisHeight,
    left,
    right,
    zeroX: x(0),
    ticks,
    rows: rows.map((row, i) => {
      const d = row.difference;
      const drawn = d.status !== "not-measured" && d.lowPercent !== null && d.highPercent !== null && d.percent !== null;
      return {
        ...row,
        y: top + i * rowHeight + rowHeight / 2,
        x1: drawn ? x(d.lowPercent ?? 0) : null,
        x2: drawn ? x(d.highPercent ?? 0) : null,
        xEstimate: drawn ? x(d.percent ?? 0) : null,
        clippedLow: drawn && (d.lowPercent ?? 0) < -extent,
        clippedHigh: drawn && (d.highPercent ?? 0) > extent,
      };
    }),
  };
}
