"use client";
import { AlertTriangle, Loader2 } from "lucide-react";
import { Skeleton } from "@/components/ui/skeleton";
import { partitionByActivity } from "../lib/device-activity";
import type { ServerMetrics } from "../types/metrics";
import { DeviceCharts } from "./device-charts";
import { MemoryChart } from "./memory-chart";

/** Everything drawn for one server and range, or the state that explains why nothing is. */
export function ServerCharts({ metrics, loading, error }: { metrics: ServerMetrics | undefined; loading: boolean; error: string | null }) {
  if (!metrics) {
    if (error) {
      return (
        <p className="flex items-center gap-2 text-sm text-destructive" role="alert" data-testid="metrics-error">
          <AlertTriangle className="size-4" aria-hidden /> Could not load the charts: {error}
        </p>
      );
    }
    return (
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2 2xl:grid-cols-3" role="status" aria-busy="true" aria-label="Loading charts">
        {Array.from({ length: 6 }, (_, index) => `placeholder-${index}`).map((key) => (
          <Skeleton key={key} className="h-60" />
        ))}
      </div>
    );
  }
  if (metrics.devices.length === 0 && metrics.memory.time.length === 0) {
    return (
      <div
        className="flex flex-col items-center gap-3 rounded-xl border border-dashed bg-card px-6 py-14 text-center"
        data-testid="waiting-for-samples"
      >
        <Loader2 className="size-6 animate-spin text-primary" aria-hidden />
        <div className="font-medium">{metrics.range === "custom" ? "No samples in this window" : "Waiting for the first samples…"}</div>
        <p className="max-w-md text-sm text-muted-foreground">
          {metrics.range === "1h"
            ? "The agent sends a sample every 10 seconds; the charts appear as soon as the first one arrives."
            : metrics.range === "custom"
              ? "No sample in this window: the agent sent nothing between these times. Widen the window or go back to live."
              : "Nothing in this range yet. Longer ranges draw minute and hour summaries, which fill in shortly after the first samples."}
        </p>
      </div>
    );
  }
  const { active, idle } = partitionByActivity(metrics.devices);
  return (
    <div className="grid gap-8">
      {error ? (
        <p className="flex items-center gap-2 text-sm text-destructive" role="status">
          <AlertTriangle className="size-4" aria-hidden /> Could not refresh: {error}. Showing the last data received.
        </p>
      ) : null}
      <div className={loading ? "opacity-60 transition-opacity" : "transition-opacity"}>
        <div className="grid gap-8">
          {active.map((series) => (
            <DeviceCharts key={series.device} series={series} />
          ))}
          {idle.length > 0 ? (
            <details className="rounded-xl border bg-card px-4 py-3" data-testid="idle-devices">
              <summary className="cursor-pointer text-sm text-muted-foreground">
                {idle.length === 1 ? "1 device" : `${idle.length} devices`} with no I/O in this range:{" "}
                <span className="font-mono">{idle.map((d) => d.device).join(", ")}</span>
              </summary>
              <div className="mt-4 grid gap-8">
                {idle.map((series) => (
                  <DeviceCharts key={series.device} series={series} />
                ))}
              </div>
            </details>
          ) : null}
          {metrics.memory.time.length > 0 ? <MemoryChart memory={metrics.memory} /> : null}
        </div>
      </div>
    </div>
  );
}
