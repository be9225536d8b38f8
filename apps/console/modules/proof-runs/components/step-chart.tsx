"use client";
// One load step, without and with the features: throughput as bars (left axis) and mean
// response time as points (right axis). A side that was not measured has no bar and is named.
import "uplot/dist/uPlot.min.css";
import { useEffect, useRef } from "react";
import type uPlot from "uplot";
import { palette } from "@/modules/metrics/components/chart-palette";
import type { StepRow } from "../lib/report-view";

interface Props {
  row: StepRow;
  throughputUnit: string;
  formatThroughput: (value: number) => string;
}

const sides = ["without", "with"] as const;

export function StepChart({ row, throughputUnit, formatThroughput }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const throughput = [row.throughputWithout, row.throughputWith];
  const latency = [row.latencyMsWithout, row.latencyMsWith];

  // biome-ignore lint/correctness/useExhaustiveDependencies: the report does not change once drawn; rebuild only for another step
  useEffect(() => {
    let chart: uPlot | undefined;
    let disposed = false;
    let observer: ResizeObserver | undefined;
    void import("uplot").then(({ default: UPlot }) => {
      const element = container.current;
      if (disposed || !element) return;
      const bars = UPlot.paths.bars?.({ size: [0.5, 80] });
      const height = 170;
      chart = new UPlot(
        {
          width: element.clientWidth,
          height,
          // Labels only: the caption states both values, and a live legend would read "not measured"
          // whenever the cursor is off the chart.
          legend: { show: true, live: false },
          cursor: { drag: { x: false, y: false } },
          scales: {
            x: { time: false, range: [0.4, 2.6] },
            y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] },
            ms: { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] },
          },
          axes: [
            {
              stroke: "#6b7280",
              splits: () => [1, 2],
              values: (_u, ticks) => ticks.map((t) => (t === 1 ? "without" : t === 2 ? "with" : "")),
              grid: { show: false },
            },
            { stroke: "#6b7280", scale: "y", size: 64, values: (_u, ticks) => ticks.map(formatThroughput), grid: { stroke: "#eef0f3" } },
            {
              stroke: "#6b7280",
              scale: "ms",
              side: 1,
              size: 72,
              values: (_u, ticks) => ticks.map((t) => `${Number(t.toPrecision(2))} ms`),
              grid: { show: false },
            },
          ],
          series: [
            {},
            {
              label: throughputUnit,
              scale: "y",
              stroke: palette.single,
              fill: `${palette.single}55`,
              paths: bars,
              points: { show: false },
              value: (_u, v) => (v === null || v === undefined ? "not measured" : `${formatThroughput(v)} ${throughputUnit}`),
            },
            {
              label: "mean response time",
              scale: "ms",
              stroke: palette.write,
              width: 0,
              points: { show: true, size: 9, fill: palette.write },
              value: (_u, v) => (v === null || v === undefined ? "not measured" : `${v.toPrecision(3)} ms`),
            },
          ],
        },
        [[1, 2], throughput, latency] as uPlot.AlignedData,
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
  }, [row, throughputUnit]);

  return (
    <figure
      className="min-w-0 break-inside-avoid rounded-xl border bg-card p-4 shadow-sm"
      data-testid="step-chart"
      data-step={row.index}
      data-without={row.throughputWithout ?? ""}
      data-with={row.throughputWith ?? ""}
    >
      <figcaption className="mb-2 text-sm font-medium">
        Step {row.index}: {row.label}
        <span className="block text-xs font-normal text-muted-foreground">
          {sides
            .map(
              (side, i) =>
                `${side}: ${throughput[i] === null ? "not measured" : `${formatThroughput(throughput[i] ?? 0)} ${throughputUnit}`}`,
            )
            .join(" · ")}
        </span>
        <span className="block text-xs font-normal text-muted-foreground">
          mean response time{" "}
          {sides
            .map((side, i) => `${side}: ${latency[i] === null ? "not measured" : `${Number((latency[i] ?? 0).toPrecision(3))} ms`}`)
            .join(" · ")}
        </span>
      </figcaption>
      <div ref={container} className="w-full" data-plot />
    </figure>
  );
}
