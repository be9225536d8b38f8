"use client";
import { AlertTriangle, RefreshCw } from "lucide-react";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { formatDateTime, formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { REFRESH_INTERVAL_MS, usePolling } from "@/lib/use-polling";
import { useUrlQuery } from "@/lib/use-url-query";
import { useAnnotations } from "@/modules/annotations/components/use-annotations";
import { DeepTelemetryPanels } from "@/modules/deep-telemetry/components/deep-telemetry-panels";
import { ChartFrame } from "@/modules/metrics/components/chart-frame";
import { RangePicker } from "@/modules/metrics/components/range-picker";
import { ServerCharts } from "@/modules/metrics/components/server-charts";
import {
  answers,
  selectionFromParams,
  selectionQuery,
  withSelection,
  zoomSelection,
  type WindowSelection,
} from "@/modules/metrics/lib/window-selection";
import type { ServerMetrics } from "@/modules/metrics/types/metrics";
import type { ServerSummary } from "../types/server";
import { ServerStatusBadge } from "./server-status-badge";

/**
 * Header, window picker and charts of one server; both header and charts refresh every 10 s.
 * The window is the URL's (a preset, an alert's window, or a custom window from a drag-zoom or
 * the form), so a zoomed view can be shared; every chart is marked with what happened to the
 * server in that window (policies, alerts, proof runs, agent restarts and upgrades).
 */
export function ServerDetail({ initialServer, alerts }: { initialServer: ServerSummary; alerts?: ReactNode }) {
  const { params, setParams } = useUrlQuery();
  const { selection, problems } = selectionFromParams(params);
  const select = (next: WindowSelection) => setParams(withSelection(new URLSearchParams(window.location.search), next));
  const windowQuery = selectionQuery(selection);
  const now = useNow();
  const server =
    usePolling<{ server: ServerSummary }>(`/api/servers/${initialServer.id}`, { initial: { server: initialServer } }).data?.server ??
    initialServer;
  const metrics = usePolling<ServerMetrics>(`/api/servers/${initialServer.id}/metrics?${windowQuery}`);
  const marks = useAnnotations([initialServer.id], windowQuery);
  const facts = [
    ["Operating system", server.osVersion || server.os],
    ["Kernel", server.kernel || "—"],
    ["Architecture", server.arch || "—"],
    ["Agent", server.agentVersion || "—"],
    ["Last seen", now === null ? "" : formatRelative(server.lastSeenAt, now)],
  ];
  // Keep the previous window's charts out: an answer is drawn only in the window it was asked for.
  const shown = answers(metrics.data, selection) ? metrics.data : undefined;
  const chartWindow: [number, number] | null = shown ? [Date.parse(shown.from) / 1000, Date.parse(shown.to) / 1000] : null;
  const fixed = selection.range === "custom" || selection.to !== null;

  return (
    <div className="grid grid-cols-1 gap-6">
      <header className="grid gap-4 rounded-xl border bg-card p-5 shadow-sm" data-testid="server-header">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="min-w-0 break-all text-2xl font-semibold tracking-tight" data-testid="server-hostname">
            {server.hostname}
          </h1>
          <ServerStatusBadge status={server.status} />
        </div>
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm md:grid-cols-3 xl:grid-cols-5">
          {facts.map(([term, value]) => (
            <div key={term} className="min-w-0">
              <dt className="text-xs text-muted-foreground">{term}</dt>
              <dd className="truncate font-medium" title={value}>
                {value}
              </dd>
            </div>
          ))}
        </dl>
      </header>
      {alerts}
      {problems.length > 0 ? (
        <p
          className="flex items-center gap-2 rounded-lg border border-destructive/40 bg-destructive/5 px-4 py-2 text-sm text-destructive"
          role="alert"
          data-testid="window-error"
        >
          <AlertTriangle className="size-4 shrink-0" aria-hidden /> This link&apos;s chart window is not valid ({problems.join("; ")});
          showing the last hour.
        </p>
      ) : null}
      {selection.range !== "custom" && selection.at && selection.to ? (
        <div
          className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-warning/50 bg-warning/10 px-4 py-2 text-sm"
          data-testid="alert-window"
          data-at={selection.at}
        >
          <span>
            Charts around the alert at {formatDateTime(selection.at)}, up to {formatDateTime(selection.to)}.
          </span>
          <Button
            variant="outline"
            size="sm"
            onClick={() => select({ range: selection.range, to: null, at: null })}
            data-testid="back-to-live"
          >
            Back to live
          </Button>
        </div>
      ) : null}
      {selection.range === "custom" ? (
        <div
          className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-primary/30 bg-primary/5 px-4 py-2 text-sm"
          data-testid="custom-window"
          data-from={selection.from}
          data-to={selection.to}
        >
          <span>
            From {formatDateTime(selection.from)} to {formatDateTime(selection.to)}. Drag across a chart to zoom in further; the link opens
            this window.
          </span>
          <Button variant="outline" size="sm" onClick={() => select({ range: "1h", to: null, at: null })} data-testid="back-to-live">
            Back to live
          </Button>
        </div>
      ) : null}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <RangePicker value={selection} onChange={select} />
        <span className="flex items-center gap-1.5 text-xs text-muted-foreground" data-testid="auto-refresh">
          <RefreshCw className={`size-3.5 ${metrics.loading ? "animate-spin" : ""}`} aria-hidden />
          {fixed ? "Fixed window" : `Refreshes every ${REFRESH_INTERVAL_MS / 1000} s`}
          {shown?.bucketSeconds ? ` · ${shown.bucketSeconds === 60 ? "1-minute" : "1-hour"} averages` : " · every sample"}
          {marks.truncated ? " · only the newest 500 events are marked" : ""}
        </span>
      </div>
      <ChartFrame window={chartWindow} onZoom={(from, to) => select(zoomSelection(from, to))} annotations={marks.annotations}>
        <ServerCharts metrics={shown} loading={metrics.loading} error={metrics.error} />
        <DeepTelemetryPanels serverId={initialServer.id} selection={selection} />
      </ChartFrame>
    </div>
  );
}
