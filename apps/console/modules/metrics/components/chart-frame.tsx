"use client";
import type { ReactNode } from "react";
import type { Annotation } from "@/modules/annotations/types/annotation";
import { ChartAnnotationsContext, ChartWindowContext, ChartZoomContext } from "./uplot-chart";

/** What every time chart inside shares: the window it spans, what a drag-zoom does, and the marks. */
export function ChartFrame({
  window,
  onZoom,
  annotations,
  showHost = false,
  children,
}: {
  window: [number, number] | null;
  onZoom: ((from: number, to: number) => void) | null;
  annotations: readonly Annotation[];
  showHost?: boolean;
  children: ReactNode;
}) {
  return (
    <ChartWindowContext.Provider value={window}>
      <ChartZoomContext.Provider value={onZoom}>
        <ChartAnnotationsContext.Provider value={{ annotations, showHost }}>{children}</ChartAnnotationsContext.Provider>
      </ChartZoomContext.Provider>
    </ChartWindowContext.Provider>
  );
}
