"use client";
import { RefreshCw } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { REFRESH_INTERVAL_MS, usePolling } from "@/lib/use-polling";
import type { ChartFocus } from "@/modules/alerts/lib/chart-link";
import { DeepTelemetryPanels } from "@/modules/deep-telemetry/components/deep-telemetry-panels";
import { RangePicker } from "@/modules/metrics/components/range-picker";
import { ServerCharts } from "@/modules/metrics/components/server-charts";
import { ChartWindowContext } from "@/modules/metrics/components/uplot-chart";
import type { MetricsRange, ServerMetrics } from "@/modules/metrics/types/metrics";
import type { ServerSummary } from "../types/server";
import { ServerStatusBadge } from "./server-status-badge";

/**
 * Header, range picker and charts of one server; both header and charts refresh every 10 s.
 * `focus` (from an alert's link) starts the charts on a window ending in the past, around the event.
 */
export function ServerDetail({ initialServer, focus = null, alerts }: { initialServer: ServerSummary; focus?: ChartFocus | null; alerts?: ReactNode }) {
  const [range, setRange] = useState<MetricsRange>(focus?.range ?? "1h");
  const [windowTo, setWindowTo] = useState<string | null>(focus?.to ?? null);
  const now = useNow();
  const server = usePolling<{ server: ServerSummary }>(`/api/servers/${initialServer.id}`, { initial: { server: initialServer } }).data?.server ?? initialServer;
  const windowQuery = windowTo ? `&to=${encodeURIComponent(windowTo)}` : "";
  const metrics = usePolling<ServerMetrics>(`/api/servers/${initialServer.id}/metrics?range=${range}${windowQuery}`);
  const facts = [
    ["Operating system", server.osVersion || server.os],
    ["Kernel", server.kernel || "—"],
    ["Architecture", server.arch || "—"],
    ["Agent", server.agentVersion || "—"],
    ["Last seen", now === null ? "" : formatRelative(server.lastSeenAt, now)],
  ];
  // Keep the previous range's charts visible (dimmed) only while they match the picked range.
  const shown = metrics.data?.range === range ? metrics.data : undefined;
  const chartWindow: [number, number] | null = shown ? [Date.parse(shown.from) / 1000, Date.parse(shown.to) / 1000] : null;

  return (
    <div className="grid gap-6">
      <header className="grid gap-4 rounded-xl border bg-card p-5 shadow-sm" data-testid="server-header">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-semibold tracking-tight" data-testid="server-hostname">{server.hostname}</h1>
          <ServerStatusBadge status={server.status} />
        </div>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm md:grid-cols-3 xl:grid-cols-5">
          {facts.map(([term, value]) => (
            <div key={term} className="min-w-0">
              <dt className="text-xs text-muted-foreground">{term}</dt>
              <dd className="truncate font-medium" title={value}>{value}</dd>
            </div>
          ))}
        </dl>
      </header>
      {alerts}
      {focus && windowTo ? (
        <div className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-warning/50 bg-warning/10 px-4 py-2 text-sm" data-testid="alert-window" data-at={focus.at}>
          <span>Charts around the alert at {formatDateTime(focus.at)}, up to {formatDateTime(windowTo)}.</span>
          <Button variant="outline" size="sm" onClick={() => setWindowTo(null)} data-testid="back-to-live">Back to live</Button>
        </div>
      ) : null}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <RangePicker value={range} onChange={setRange} />
        <span className="flex items-center gap-1.5 text-xs text-muted-foreground" data-testid="auto-refresh">
          <RefreshCw className={`size-3.5 ${metrics.loading ? "animate-spin" : ""}`} aria-hidden />
          {windowTo ? "Fixed window" : `Refreshes every ${REFRESH_INTERVAL_MS / 1000} s`}
          {shown?.bucketSeconds ? ` · ${shown.bucketSeconds === 60 ? "1-minute" : "1-hour"} averages` : " · every sample"}
        </span>
      </div>
      <ChartWindowContext.Provider value={chartWindow}>
        <ServerCharts metrics={shown} loading={metrics.loading} error={metrics.error} />
        <DeepTelemetryPanels serverId={initialServer.id} range={range} windowTo={windowTo} />
      </ChartWindowContext.Provider>
    </div>
  );
}
