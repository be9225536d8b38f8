"use client";
import { ArrowDown, ArrowUp, ArrowUpDown, BellRing, Ban } from "lucide-react";
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { cn } from "@/lib/utils";
import type { FleetRow } from "../types/fleet";
import type { FleetQuery, FleetSortKey } from "../types/fleet-query";
import { LatencyCell, PolicyStateBadge } from "./figure-cells";
import { ServerStatusBadge } from "./server-status-badge";

/** Keys whose first click sorts the biggest first: the most alerts, the latest seen. */
const descendingFirst: FleetSortKey[] = ["firing", "lastSeen"];

function SortHeader({
  column,
  label,
  query,
  onSort,
  className,
}: {
  column: FleetSortKey;
  label: string;
  query: FleetQuery;
  onSort: (sort: FleetSortKey, dir: "asc" | "desc") => void;
  className?: string;
}) {
  const active = query.sort === column;
  const Icon = active ? (query.dir === "asc" ? ArrowUp : ArrowDown) : ArrowUpDown;
  const next = active ? (query.dir === "asc" ? "desc" : "asc") : descendingFirst.includes(column) ? "desc" : "asc";
  return (
    <TableHead className={className} aria-sort={active ? (query.dir === "asc" ? "ascending" : "descending") : "none"}>
      <button
        type="button"
        onClick={() => onSort(column, next)}
        data-testid={`sort-${column}`}
        className={cn("inline-flex items-center gap-1 uppercase hover:text-foreground", active && "text-foreground")}
      >
        {label} <Icon className="size-3" aria-hidden />
      </button>
    </TableHead>
  );
}

interface Props {
  rows: FleetRow[];
  query: FleetQuery;
  onSort: (sort: FleetSortKey, dir: "asc" | "desc") => void;
  selected: ReadonlySet<string>;
  allMatching: boolean;
  onToggle: (id: string) => void;
  onTogglePage: (select: boolean) => void;
  onTag: (tag: string) => void;
  dimmed: boolean;
}

/** One page of the fleet: sortable columns, a checkbox per row for bulk actions and comparison. */
export function FleetTable({ rows, query, onSort, selected, allMatching, onToggle, onTogglePage, onTag, dimmed }: Props) {
  const now = useNow();
  const pageSelected = rows.length > 0 && rows.every((row) => allMatching || selected.has(row.id));
  return (
    <div className={cn("min-w-0 rounded-xl border bg-card shadow-sm", dimmed && "opacity-60 transition-opacity")}>
      <Table data-testid="fleet-table" className="min-w-[960px]">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead className="w-10">
              <input
                type="checkbox"
                aria-label="Select every server on this page"
                data-testid="select-page"
                checked={pageSelected}
                disabled={allMatching}
                onChange={(event) => onTogglePage(event.target.checked)}
                className="size-4 accent-primary"
              />
            </TableHead>
            <SortHeader column="hostname" label="Hostname" query={query} onSort={onSort} />
            <SortHeader column="status" label="Status" query={query} onSort={onSort} />
            <SortHeader column="firing" label="Alerts" query={query} onSort={onSort} />
            <SortHeader column="os" label="Operating system" query={query} onSort={onSort} />
            <SortHeader column="kernel" label="Kernel" query={query} onSort={onSort} />
            <SortHeader column="agentVersion" label="Agent" query={query} onSort={onSort} />
            <SortHeader column="policy" label="Policy" query={query} onSort={onSort} />
            <TableHead title="p99 of storage reads over the last hour, from the eBPF latency histograms (descriptive)">
              p99 read, 1 h
            </TableHead>
            <SortHeader column="lastSeen" label="Last seen" query={query} onSort={onSort} />
          </TableRow>
        </TableHeader>
        <TableBody>
          {rows.map((server) => (
            <TableRow
              key={server.id}
              data-testid="fleet-row"
              data-hostname={server.hostname}
              data-server-id={server.id}
              data-selected={allMatching || selected.has(server.id)}
            >
              <TableCell>
                <input
                  type="checkbox"
                  aria-label={`Select ${server.hostname}`}
                  data-testid="select-row"
                  className="size-4 accent-primary"
                  checked={allMatching || selected.has(server.id)}
                  disabled={allMatching}
                  onChange={() => onToggle(server.id)}
                />
              </TableCell>
              <TableCell className="font-medium">
                <Link href={`/servers/${server.id}`} className="hover:underline">
                  {server.hostname}
                </Link>
                <div className="mt-0.5 flex flex-wrap items-center gap-1 text-xs text-muted-foreground">
                  {server.arch}
                  {server.tags.map((tag) => (
                    <button
                      key={tag}
                      type="button"
                      onClick={() => onTag(tag)}
                      data-testid="fleet-row-tag"
                      className="rounded bg-accent px-1.5 py-px font-mono text-[11px] text-accent-foreground hover:underline"
                      title={`Show the servers tagged ${tag}`}
                    >
                      {tag}
                    </button>
                  ))}
                </div>
              </TableCell>
              <TableCell>
                <div className="flex flex-wrap items-center gap-1">
                  <ServerStatusBadge status={server.status} />
                  {server.revoked ? (
                    <Badge variant="destructive" data-testid="revoked">
                      <Ban className="size-3" aria-hidden /> Revoked
                    </Badge>
                  ) : null}
                </div>
              </TableCell>
              <TableCell>
                {server.firing > 0 ? (
                  <Link
                    href={`/alerts`}
                    data-testid="firing-count"
                    data-count={server.firing}
                    data-severity={server.firingSeverity}
                    className="inline-flex items-center gap-1 rounded-full bg-destructive/10 px-2 py-0.5 text-xs font-medium text-destructive hover:underline"
                  >
                    <BellRing className="size-3" aria-hidden /> {server.firing} firing
                    {server.firingSeverity === "critical" ? " (critical)" : ""}
                  </Link>
                ) : (
                  <span className="text-xs text-muted-foreground">none</span>
                )}
              </TableCell>
              <TableCell>{server.osName || "—"}</TableCell>
              <TableCell className="font-mono text-xs">{server.kernel || "—"}</TableCell>
              <TableCell className="font-mono text-xs">{server.agentVersion || "—"}</TableCell>
              <TableCell>
                <PolicyStateBadge state={server.policyState} />
              </TableCell>
              <TableCell>
                <LatencyCell figure={server.p99ReadLatency} testId="row-p99" />
              </TableCell>
              <TableCell className="text-muted-foreground" title={server.lastSeenAt ?? undefined}>
                {now === null ? "" : formatRelative(server.lastSeenAt, now)}
                {server.missingCapabilities && server.missingCapabilities.length > 0 ? (
                  <div className="text-xs" title={`Missing: ${server.missingCapabilities.join(", ")}`} data-testid="missing-capabilities">
                    {server.missingCapabilities.length} capabilit{server.missingCapabilities.length === 1 ? "y" : "ies"} missing
                  </div>
                ) : null}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
