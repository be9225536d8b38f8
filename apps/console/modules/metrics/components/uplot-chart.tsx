"use client";
// One uPlot chart that follows its container's width. uPlot is loaded on the client only (it
// measures the DOM) and updated in place with setData when new points arrive. Every time chart
// on a page shares the page's window, its zoom (drag across a chart to zoom every chart to that
// span) and its annotations (what happened to the server, marked on each chart).
import "uplot/dist/uPlot.min.css";
import { createContext, useContext, useEffect, useRef } from "react";
import type uPlot from "uplot";
import { annotationsPlugin } from "@/modules/annotations/components/uplot-annotations";
import type { Annotation } from "@/modules/annotations/types/annotation";
import { isolatedPoints } from "@/modules/metrics/lib/isolated-points";

/**
 * The time window every chart on a page spans, in unix seconds: the picked range, not the span
 * of the data, so that a server that reported twice does not draw two points across years.
 */
export const ChartWindowContext = createContext<[number, number] | null>(null);

/** Called with the window a drag selected (unix seconds); without it, dragging does nothing. */
export const ChartZoomContext = createContext<((from: number, to: number) => void) | null>(null);

/** What to mark on every chart of the page; `showHost` names the server in each (a comparison). */
export const ChartAnnotationsContext = createContext<{ annotations: readonly Annotation[]; showHost: boolean }>({
  annotations: [],
  showHost: false,
});

/** A drag narrower than this many pixels is a click, not a zoom. */
const MIN_DRAG_PX = 8;

export interface ChartSeries {
  label: string;
  color: string;
  /** null: a gap (the line breaks); undefined: no sample at that time in this series (the line continues across). */
  values: (number | null | undefined)[];
}

interface Props {
  title: string;
  unit: string;
  time: number[];
  series: ChartSeries[];
  format: (value: number) => string;
  /** Fixed y range, e.g. [0, 100] for percentages; otherwise from 0 to the data's maximum. */
  yRange?: [number, number];
  testId?: { chart: string; device?: string };
  height?: number;
}

function countPoints(time: number[], series: ChartSeries[]): number {
  return time.filter((_, index) => series.some((s) => s.values[index] !== null && s.values[index] !== undefined)).length;
}

export function UPlotChart({ title, unit, time, series, format, yRange, testId, height = 180 }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  const data = [time, ...series.map((s) => s.values)] as uPlot.AlignedData;
  const shape = series.map((s) => s.label).join("|");
  const latestData = useRef(data);
  latestData.current = data;
  const chartWindow = useContext(ChartWindowContext);
  const latestWindow = useRef(chartWindow);
  latestWindow.current = chartWindow;
  const zoom = useContext(ChartZoomContext);
  const latestZoom = useRef(zoom);
  latestZoom.current = zoom;
  const marks = useContext(ChartAnnotationsContext);
  const latestMarks = useRef(marks);
  latestMarks.current = marks;
  const marksKey = marks.annotations.map((a) => `${a.id}@${a.at}`).join("|");

  // Build (or rebuild when the series change); follow the container's width.
  // biome-ignore lint/correctness/useExhaustiveDependencies: rebuild only when the set of series changes; data updates go through setData below
  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | undefined;
    void import("uplot").then(({ default: UPlot }) => {
      const element = container.current;
      if (disposed || !element) return;
      const options: uPlot.Options = {
        width: element.clientWidth,
        height,
        legend: { show: true },
        // Drag across the plot to zoom: the selection becomes the page's window (the URL), so
        // every chart follows it and the link can be shared. uPlot's own scale change is off.
        cursor: { drag: { x: true, y: false, setScale: false } },
        plugins: [
          annotationsPlugin(
            () => latestMarks.current.annotations,
            () => latestMarks.current.showHost,
          ),
        ],
        hooks: {
          setSelect: [
            (u) => {
              const { left, width } = u.select;
              if (width >= MIN_DRAG_PX && latestZoom.current) {
                const from = u.posToVal(left, "x");
                const to = u.posToVal(left + width, "x");
                latestZoom.current(Math.floor(from), Math.ceil(to));
              }
              u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            },
          ],
        },
        scales: {
          x: { time: true, range: (_u, min, max) => latestWindow.current ?? [min, max] },
          y: { range: yRange ? () => yRange : (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          { stroke: "#6b7280", grid: { stroke: "#eef0f3" }, ticks: { stroke: "#e5e7eb" } },
          {
            stroke: "#6b7280",
            grid: { stroke: "#eef0f3" },
            ticks: { stroke: "#e5e7eb" },
            size: 72,
            values: (_u, ticks) => ticks.map(format),
          },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            width: 1.5,
            fill: `${s.color}14`,
            spanGaps: false,
            // Lone samples between gaps have no line to draw: drawn as points instead.
            points: {
              filter: (u: uPlot, seriesIndex: number, shown: boolean) => {
                if (shown) return null; // uPlot draws every point already
                const lone = isolatedPoints(u.data[seriesIndex] ?? []);
                return lone.length > 0 ? lone : null;
              },
            },
            value: (_u: uPlot, value: number | null) =>
              value === null || value === undefined ? "—" : unit ? `${format(value)} ${unit}` : format(value),
          })),
        ],
      };
      chart.current = new UPlot(options, latestData.current, element);
      observer = new ResizeObserver(([entry]) => {
        if (entry) chart.current?.setSize({ width: Math.floor(entry.contentRect.width), height });
      });
      observer.observe(element);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.destroy();
      chart.current = null;
    };
  }, [shape, height, unit]);

  useEffect(() => {
    chart.current?.setData(data);
  });

  // New marks (or none): draw again without new data.
  // biome-ignore lint/correctness/useExhaustiveDependencies: redraws when the marks change, which is the point
  useEffect(() => {
    chart.current?.redraw(false);
  }, [marksKey]);

  return (
    <figure
      className="min-w-0 rounded-xl border bg-card p-4 shadow-sm"
      data-testid="chart"
      data-chart={testId?.chart}
      data-device={testId?.device}
      data-points={countPoints(time, series)}
      data-window-from={chartWindow?.[0]}
      data-window-to={chartWindow?.[1]}
      data-zoomable={zoom !== null}
    >
      <figcaption className="mb-2 flex items-baseline justify-between gap-2">
        <span className="text-sm font-medium">{title}</span>
        <span className="text-xs text-muted-foreground">{unit}</span>
      </figcaption>
      {time.length > 0 && countPoints(time, series) === 0 ? (
        // Samples arrived, but none carried this metric: the agent does not measure it here.
        <p className="mb-2 text-xs text-muted-foreground" data-testid="not-measured">
          Not measured: the agent sent no value for this chart in the selected range.
        </p>
      ) : null}
      <div ref={container} className="w-full" data-plot />
    </figure>
  );
}
