"use client";
import { AlertTriangle, Download } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { describeMeasured, type LedgerLine } from "@spindle/domain";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { usePolling } from "@/lib/use-polling";
import { formatInterval } from "../lib/format-caused";
import { formatInUnit, formatPercent } from "../lib/format-gains";
import type { FleetGains } from "../types/gains";
import { gainsQueryString, type GainsSelection } from "../types/range";
import { GainsRangePicker } from "./gains-range-picker";
import { LedgerTable } from "./ledger-table";

function LineCell({ line }: { line: LedgerLine | undefined }) {
  if (!line) return <TableCell />;
  return (
    <TableCell className="text-right tabular-nums" title={describeMeasured(line.effect)} data-status={line.effect.status}>
      {line.effect.status === "measured" ? (
        formatInUnit(line.effect.value, line.unit)
      ) : (
        <span className="text-muted-foreground">not measured</span>
      )}
      {line.effect.status === "measured" && line.interval ? (
        <div className="text-xs text-muted-foreground">{formatInterval(line.interval, line.unit)}</div>
      ) : null}
    </TableCell>
  );
}

/** The Gains page: one row per server, and the fleet's ledger. */
export function FleetGainsView() {
  const [selection, setSelection] = useState<GainsSelection>({ range: "24h" });
  const query = gainsQueryString(selection);
  const { data: gains, error } = usePolling<FleetGains>(`/api/gains?${query}`, { intervalMs: 30_000 });
  const line = (lines: readonly LedgerLine[], key: LedgerLine["key"]) => lines.find((candidate) => candidate.key === key);
  return (
    <div className="grid gap-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <GainsRangePicker value={selection} onChange={setSelection} />
        <a
          className="inline-flex items-center gap-1 text-sm text-primary hover:underline"
          href={`/api/gains/export?what=ledger&${query}`}
          data-testid="export-fleet-ledger"
        >
          <Download className="size-4" aria-hidden /> Ledger CSV
        </a>
      </div>
      {error ? (
        <p className="flex items-center gap-2 text-sm text-destructive" role="alert">
          <AlertTriangle className="size-4" aria-hidden /> Could not load the gains: {error}
        </p>
      ) : null}
      {!gains ? (
        <Skeleton className="h-60" />
      ) : (
        <>
          <Card>
            <CardHeader>
              <CardTitle className="text-base">Servers</CardTitle>
              <CardDescription>
                Saved means caused: measured against the read cache&apos;s control group, with its 95 % interval, or not measured. Reads
                from memory describe what the page cache served. Hover a figure for what it was measured from; open a server for its
                devices, chart and before/after verdict.
              </CardDescription>
            </CardHeader>
            <CardContent>
              <Table data-testid="gains-servers">
                <TableHeader>
                  <TableRow>
                    <TableHead>Server</TableHead>
                    <TableHead className="text-right">Reads from memory (description)</TableHead>
                    <TableHead className="text-right">Storage reads saved (caused)</TableHead>
                    <TableHead className="text-right">Storage time saved (caused)</TableHead>
                    <TableHead className="text-right">Fragments prevented</TableHead>
                    <TableHead className="text-right">Files defragmented</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {gains.servers.map((server) => (
                    <TableRow key={server.serverId} data-testid="gains-server-row" data-server={server.hostname}>
                      <TableCell className="font-mono">
                        <Link href={`/servers/${server.serverId}`} className="hover:underline">
                          {server.hostname}
                        </Link>
                      </TableCell>
                      <TableCell
                        className="text-right tabular-nums"
                        title={describeMeasured(server.reads)}
                        data-status={server.reads.status}
                      >
                        {server.reads.status === "measured" ? (
                          formatPercent(server.reads.value.memoryShare)
                        ) : (
                          <span className="text-muted-foreground">not measured</span>
                        )}
                      </TableCell>
                      <LineCell line={line(server.ledger, "storageIosSaved")} />
                      <LineCell line={line(server.ledger, "storageTimeSaved")} />
                      <LineCell line={line(server.ledger, "fragmentsPrevented")} />
                      <LineCell line={line(server.ledger, "filesDefragmented")} />
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
              {gains.servers.length === 0 ? (
                <p className="mt-3 text-sm text-muted-foreground">No servers yet: add one from the Servers page.</p>
              ) : null}
            </CardContent>
          </Card>
          <Card>
            <CardHeader>
              <CardTitle className="text-base">Fleet savings ledger</CardTitle>
              <CardDescription>Each line adds up the servers where it was measured, and names the others.</CardDescription>
            </CardHeader>
            <CardContent>
              <LedgerTable lines={gains.ledger} testId="fleet-ledger" />
            </CardContent>
          </Card>
        </>
      )}
    </div>
  );
}
