"use client";
import { AlertTriangle, Download } from "lucide-react";
import { useUrlQuery } from "@/lib/use-url-query";
import { useAnnotations } from "@/modules/annotations/components/use-annotations";
import { ChartFrame } from "@/modules/metrics/components/chart-frame";
import { describeMeasured } from "@spindle/domain";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatBytes, formatNumber } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import { formatDuration } from "../lib/format-gains";
import { gainsSelectionFromParams, withGainsSelection } from "../lib/gains-url";
import type { ServerGains } from "../types/gains";
import { gainsQueryString, type GainsSelection } from "../types/range";
import type { ServerVerdict } from "../types/verdict";
import { GainsRangePicker } from "./gains-range-picker";
import { LedgerTable } from "./ledger-table";
import { ReadsChart } from "./reads-chart";
import { ReadsSummary } from "./reads-summary";
import { VerdictView } from "./verdict-view";

function DeviceTable({ gains }: { gains: ServerGains }) {
  if (gains.devices.length === 0)
    return <p className="text-sm text-muted-foreground">No storage reads were recorded on any device in this range.</p>;
  return (
    <Table data-testid="gains-devices">
      <TableHeader>
        <TableRow>
          <TableHead>Device</TableHead>
          <TableHead className="text-right">Storage reads</TableHead>
          <TableHead className="text-right">Read bytes</TableHead>
          <TableHead className="text-right">Mean read size</TableHead>
          <TableHead className="text-right">Mean read latency</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {gains.devices.map((device) => (
          <TableRow key={device.device}>
            <TableCell className="font-mono">{device.device}</TableCell>
            <TableCell className="text-right tabular-nums">
              {device.readOps === null ? "not measured" : formatNumber(device.readOps)}
            </TableCell>
            <TableCell className="text-right tabular-nums">
              {device.readBytes === null ? "not measured" : formatBytes(device.readBytes)}
            </TableCell>
            <TableCell className="text-right tabular-nums" title={describeMeasured(device.meanReadBytes)}>
              {device.meanReadBytes.status === "measured" ? formatBytes(device.meanReadBytes.value) : "not measured"}
            </TableCell>
            <TableCell className="text-right tabular-nums" title={describeMeasured(device.meanReadLatencySeconds)}>
              {device.meanReadLatencySeconds.status === "measured" ? formatDuration(device.meanReadLatencySeconds.value) : "not measured"}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** The gains section of a server's page: reads, latencies, time saved, ledger, verdict, exports. */
export function ServerGainsSection({ serverId }: { serverId: string }) {
  // The range is the URL's (gains, gainsFrom, gainsTo), so a zoom into the reads chart is shared like the other charts'.
  const { params, setParams } = useUrlQuery();
  const selection = gainsSelectionFromParams(params);
  const setSelection = (next: GainsSelection) => setParams(withGainsSelection(new URLSearchParams(window.location.search), next));
  const query = gainsQueryString(selection);
  const { data: gains, error } = usePolling<ServerGains>(`/api/servers/${serverId}/gains?${query}`);
  const chartWindowQuery = gains ? `from=${encodeURIComponent(gains.range.from)}&to=${encodeURIComponent(gains.range.to)}` : "range=1h";
  const marks = useAnnotations([serverId], chartWindowQuery);
  const { data: verdict } = usePolling<ServerVerdict>(`/api/servers/${serverId}/gains/verdict`, { intervalMs: 60_000 });
  return (
    <Card data-testid="server-gains">
      <CardHeader>
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <CardTitle className="text-base">Gains</CardTitle>
            <CardDescription>
              What the read cache and write optimisation won on this server, each figure with what it was measured from. Saved means caused:
              measured against a control group, with its interval, or not measured.
            </CardDescription>
          </div>
          <GainsRangePicker value={selection} onChange={setSelection} />
        </div>
      </CardHeader>
      <CardContent className="grid gap-6">
        {error ? (
          <p className="flex items-center gap-2 text-sm text-destructive" role="alert">
            <AlertTriangle className="size-4" aria-hidden /> Could not load the gains: {error}
          </p>
        ) : null}
        {!gains ? (
          <Skeleton className="h-40" />
        ) : (
          <>
            <ReadsSummary gains={gains} />
            <ChartFrame
              window={[Date.parse(gains.range.from) / 1000, Date.parse(gains.range.to) / 1000]}
              annotations={marks.annotations}
              onZoom={(from, to) =>
                setSelection({ range: "custom", from: new Date(from * 1000).toISOString(), to: new Date(to * 1000).toISOString() })
              }
            >
              <ReadsChart series={gains.series} range={gains.range} />
            </ChartFrame>
            <div>
              <h4 className="mb-2 text-sm font-medium">Storage reads per device</h4>
              <DeviceTable gains={gains} />
            </div>
            <div>
              <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
                <h4 className="text-sm font-medium">Savings ledger</h4>
                <div className="flex gap-3 text-sm">
                  <a
                    className="inline-flex items-center gap-1 text-primary hover:underline"
                    href={`/api/gains/export?what=ledger&serverId=${serverId}&${query}`}
                    data-testid="export-ledger"
                  >
                    <Download className="size-4" aria-hidden /> Ledger CSV
                  </a>
                  <a
                    className="inline-flex items-center gap-1 text-primary hover:underline"
                    href={`/api/gains/export?what=series&serverId=${serverId}&${query}`}
                    data-testid="export-series"
                  >
                    <Download className="size-4" aria-hidden /> Reads CSV
                  </a>
                </div>
              </div>
              <LedgerTable lines={gains.ledger} />
            </div>
          </>
        )}
        <div>
          <h4 className="mb-2 text-sm font-medium">Before/after the latest policy change</h4>
          {verdict ? <VerdictView verdict={verdict} /> : <Skeleton className="h-10" />}
        </div>
      </CardContent>
    </Card>
  );
}
