"use client";
import { AlertTriangle } from "lucide-react";
import Link from "next/link";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { formatBytes, formatDateTime, formatNumber } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import { useUrlQuery } from "@/lib/use-url-query";
import { useAnnotations } from "@/modules/annotations/components/use-annotations";
import { ChartFrame } from "@/modules/metrics/components/chart-frame";
import { palette } from "@/modules/metrics/components/chart-palette";
import { RangePicker } from "@/modules/metrics/components/range-picker";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import {
  answers,
  selectionFromParams,
  selectionQuery,
  withSelection,
  zoomSelection,
  type WindowSelection,
} from "@/modules/metrics/lib/window-selection";
import { alignServers } from "../lib/align";
import {
  comparisonMetricNames,
  comparisonMetrics,
  comparisonQuerySchema,
  type Comparison,
  type ComparisonMetric,
} from "../types/comparison";

const colours = [palette.read, palette.write, palette.single, palette.available];

/** One metric of 2 to 4 servers on one chart, with the same window, zoom and marks as a server page. */
export function CompareView() {
  const { params, setParams } = useUrlQuery();
  const parsed = comparisonQuerySchema.safeParse(Object.fromEntries(params));
  const { selection, problems } = selectionFromParams(params);
  const serverIds = parsed.success ? parsed.data.servers : [];
  const metric: ComparisonMetric = parsed.success ? parsed.data.metric : "readIops";
  const windowQuery = selectionQuery(selection);
  const { data, error, loading } = usePolling<Comparison>(
    parsed.success ? `/api/compare?servers=${serverIds.join(",")}&metric=${metric}&${windowQuery}` : null,
  );
  const marks = useAnnotations(serverIds, windowQuery);
  const select = (next: WindowSelection) => setParams(withSelection(new URLSearchParams(window.location.search), next));
  const setMetric = (next: string) => {
    const updated = new URLSearchParams(window.location.search);
    updated.set("metric", next);
    setParams(updated);
  };

  if (!parsed.success) {
    return (
      <div
        className="grid gap-2 rounded-xl border border-destructive/40 bg-destructive/5 p-4 text-sm"
        role="alert"
        data-testid="compare-error"
      >
        <p className="font-medium">This comparison&apos;s link is not valid:</p>
        <ul className="list-disc pl-5">
          {parsed.error.issues.map((issue) => (
            <li key={`${issue.path.join(".")}: ${issue.message}`}>
              {issue.path.join(".")}: {issue.message}
            </li>
          ))}
        </ul>
        <p>
          Tick 2 to 4 servers on the{" "}
          <Link href="/servers" className="text-primary hover:underline">
            Servers
          </Link>{" "}
          page and press Compare.
        </p>
      </div>
    );
  }
  const shown = data && data.metric === metric && answers(data, selection) ? data : undefined;
  const aligned = shown ? alignServers(shown.servers) : null;
  const format = metric === "memoryAvailable" ? formatBytes : formatNumber;
  return (
    <div className="grid gap-4" data-testid="compare-view">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <label className="grid gap-1 text-xs font-medium text-muted-foreground">
          Metric
          <Select
            aria-label="Metric"
            value={metric}
            onChange={(event) => setMetric(event.target.value)}
            className="min-w-72 text-foreground"
            data-testid="compare-metric"
          >
            {comparisonMetricNames.map((name) => (
              <option key={name} value={name}>
                {comparisonMetrics[name].label}
              </option>
            ))}
          </Select>
        </label>
        <RangePicker value={selection} onChange={select} />
      </div>
      {problems.length > 0 ? (
        <p className="flex items-center gap-2 text-sm text-destructive" role="alert" data-testid="window-error">
          <AlertTriangle className="size-4" aria-hidden /> This link&apos;s chart window is not valid ({problems.join("; ")}); showing the
          last hour.
        </p>
      ) : null}
      {selection.range === "custom" ? (
        <div
          className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-primary/30 bg-primary/5 px-4 py-2 text-sm"
          data-testid="custom-window"
        >
          <span>
            From {formatDateTime(selection.from)} to {formatDateTime(selection.to)}.
          </span>
          <Button variant="outline" size="sm" onClick={() => select({ range: "1h", to: null, at: null })} data-testid="back-to-live">
            Back to live
          </Button>
        </div>
      ) : null}
      {error && !shown ? (
        <p className="flex items-center gap-2 text-sm text-destructive" role="alert" data-testid="metrics-error">
          <AlertTriangle className="size-4" aria-hidden /> {error}
        </p>
      ) : null}
      {!shown || !aligned ? (
        <Skeleton className="h-72" />
      ) : (
        <div className={loading ? "opacity-60 transition-opacity" : "transition-opacity"}>
          <ChartFrame
            window={[Date.parse(shown.from) / 1000, Date.parse(shown.to) / 1000]}
            onZoom={(from, to) => select(zoomSelection(from, to))}
            annotations={marks.annotations}
            showHost
          >
            <UPlotChart
              title={shown.label}
              unit={shown.unit === "bytes" ? "" : shown.unit}
              time={aligned.time}
              format={format}
              height={320}
              testId={{ chart: "compare" }}
              series={shown.servers.map((server, i) => ({
                label: server.hostname,
                color: colours[i % colours.length]!,
                values: aligned.series[i]!,
              }))}
            />
          </ChartFrame>
          <ul className="mt-3 flex flex-wrap gap-4 text-sm">
            {shown.servers.map((server, i) => (
              <li key={server.id} className="flex items-center gap-2" data-testid="compare-server" data-server-id={server.id}>
                <span className="size-2.5 rounded-full" style={{ background: colours[i % colours.length] }} aria-hidden />
                <Link href={`/servers/${server.id}?${windowQuery}`} className="hover:underline">
                  {server.hostname}
                </Link>
                {server.values.every((v) => v === null) ? (
                  <span className="text-xs text-muted-foreground">not measured in this window</span>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
