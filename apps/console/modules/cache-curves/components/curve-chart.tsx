"use client";
// A miss-ratio curve drawn with uPlot: hit ratio (%) against cache size on a log axis, with
// vertical marks for the read-cache budget and the memory the host can spare. Separate from
// UPlotChart, whose x axis is time.
import "uplot/dist/uPlot.min.css";
import { useEffect, useRef } from "react";
import type uPlot from "uplot";
import { formatBytes } from "@/lib/format";
import { palette } from "@/modules/metrics/components/chart-palette";
import type { CacheCurve, CurveMarker } from "../types/cache-curves";

export interface ChartMark {
  label: string;
  color: string;
  marker: CurveMarker;
}

export function CurveChart({ curve, marks, height = 260 }: { curve: CacheCurve; marks: ChartMark[]; height?: number }) {
  const container = useRef<HTMLDivElement>(null);
  const shape = `${curve.curve}|${curve.scope}|${curve.sizesBytes.join(",")}|${curve.hitRatios.join(",")}|${marks.map((m) => m.marker.bytes).join(",")}`;

  useEffect(() => {
    let disposed = false;
    let chart: uPlot | undefined;
    let observer: ResizeObserver | undefined;
    void import("uplot").then(({ default: UPlot }) => {
      const element = container.current;
      if (disposed || !element) return;
      const sizes = curve.sizesBytes;
      const xMax = Math.max(sizes[sizes.length - 1]!, ...marks.map((m) => m.marker.bytes)) * 1.5;
      const drawMarks = (u: uPlot) => {
        const ctx = u.ctx;
        for (const mark of marks) {
          const x = Math.round(u.valToPos(mark.marker.bytes, "x", true));
          ctx.save();
          ctx.strokeStyle = mark.color;
          ctx.setLineDash([6, 4]);
          ctx.lineWidth = 1.5 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
        }
      };
      chart = new UPlot(
        {
          width: element.clientWidth,
          height,
          legend: { show: true },
          cursor: { drag: { x: false, y: false } },
          scales: { x: { time: false, distr: 3, range: () => [sizes[0]!, xMax] }, y: { range: () => [0, 100] } },
          axes: [
            // On a log scale uPlot passes null for the ticks it leaves unlabelled (too close
            // together); formatting one threw, and the curve was never drawn.
            { stroke: "#6b7280", grid: { stroke: "#eef0f3" }, values: (_u, ticks) => ticks.map((t) => (t === null ? "" : formatBytes(t))) },
            { stroke: "#6b7280", grid: { stroke: "#eef0f3" }, size: 56, values: (_u, ticks) => ticks.map((t) => `${t} %`) },
          ],
          series: [
            { label: "cache size", value: (_u, v) => (v === null ? "—" : formatBytes(v)) },
            {
              label: "LRU hit ratio",
              stroke: palette.single,
              width: 2,
              fill: `${palette.single}14`,
              paths: UPlot.paths.stepped!({ align: 1 }),
              value: (_u, v) => (v === null ? "—" : `${v.toFixed(1)} %`),
            },
          ],
          hooks: { draw: [drawMarks] },
        },
        [sizes, curve.hitRatios.map((r) => r * 100)],
        element,
      );
      observer = new ResizeObserver(([entry]) => {
        if (entry) chart?.setSize({ width: Math.floor(entry.contentRect.width), height });
      });
      observer.observe(element);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      chart?.destroy();
    };
    // The shape string covers every input the chart is drawn from.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape, height]);

  return <div ref={container} className="w-full" data-testid="cache-curve-chart" data-plot data-points={curve.sizesBytes.length} />;
}
