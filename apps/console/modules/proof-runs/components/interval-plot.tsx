// The changes with their intervals, one row per step and the overall one, against a line at 0:
// an interval that crosses the line is "no measurable difference". Plain SVG drawn on the
// server, so it prints exactly as shown.
import { palette } from "@/modules/metrics/components/chart-palette";
import { intervalPlot, type IntervalRow } from "../lib/interval-plot";

const muted = "#94a3b8";

export function IntervalPlot({ title, rows, better }: { title: string; rows: IntervalRow[]; better: "higher" | "lower" }) {
  const plot = intervalPlot(rows);
  return (
    <figure
      className="min-w-0 break-inside-avoid rounded-xl border bg-card p-4 shadow-sm"
      data-testid="interval-plot"
      data-zero-x={plot.zeroX}
    >
      <figcaption className="mb-2 text-sm font-medium">
        {title}
        <span className="block text-xs font-normal text-muted-foreground">
          change with the features, in % of without ({better} is better); a bar crossing 0 is no measurable difference; an arrow runs on
          beyond the axis (the table gives the figure)
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${plot.width} ${plot.height}`} className="h-auto w-full" role="img" aria-label={title}>
        {plot.ticks.map((tick) => (
          <g key={tick.value}>
            <line
              x1={tick.x}
              x2={tick.x}
              y1={0}
              y2={plot.height - 22}
              stroke={tick.value === 0 ? "#334155" : "#eef0f3"}
              strokeDasharray={tick.value === 0 ? "4 3" : undefined}
              data-testid={tick.value === 0 ? "zero-line" : undefined}
            />
            <text x={tick.x} y={plot.height - 6} textAnchor="middle" fontSize={11} fill="#6b7280">
              {tick.value > 0 ? "+" : ""}
              {tick.value} %
            </text>
          </g>
        ))}
        {plot.rows.map((row) => {
          const colour = row.difference.status === "measured" ? palette.single : muted;
          return (
            <g
              key={row.key}
              data-testid="interval-row"
              data-status={row.difference.status}
              data-x1={row.x1 ?? ""}
              data-x2={row.x2 ?? ""}
              data-estimate-x={row.xEstimate ?? ""}
            >
              <text x={plot.left - 8} y={row.y + 4} textAnchor="end" fontSize={12} fill="#111827">
                {row.label}
              </text>
              {row.x1 !== null && row.x2 !== null && row.xEstimate !== null ? (
                <>
                  <line x1={row.x1} x2={row.x2} y1={row.y} y2={row.y} stroke={colour} strokeWidth={3} strokeLinecap="round" />
                  {row.clippedLow ? (
                    <path d={`M ${row.x1} ${row.y} l 8 -6 l 0 12 z`} fill={colour} />
                  ) : (
                    <line x1={row.x1} x2={row.x1} y1={row.y - 6} y2={row.y + 6} stroke={colour} strokeWidth={2} />
                  )}
                  {row.clippedHigh ? (
                    <path d={`M ${row.x2} ${row.y} l -8 -6 l 0 12 z`} fill={colour} />
                  ) : (
                    <line x1={row.x2} x2={row.x2} y1={row.y - 6} y2={row.y + 6} stroke={colour} strokeWidth={2} />
                  )}
                  <circle cx={row.xEstimate} cy={row.y} r={4.5} fill={colour} />
                </>
              ) : (
                <text x={plot.left + 6} y={row.y + 4} fontSize={11} fill="#6b7280">
                  not measured
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
