"use client";
import { AlertTriangle, Plus, Server } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { buttonVariants } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatRelative } from "@/lib/format";
import { useNow } from "@/lib/use-now";
import { usePolling } from "@/lib/use-polling";
import { FiringCount, useFiringCounts } from "@/modules/alerts/components/firing-count";
import type { ServerSummary } from "../types/server";
import { ServerStatusBadge } from "./server-status-badge";

/** The fleet, refreshed every 10 s so a newly enrolled server appears within one interval. */
export function FleetTable({ initialServers, canAdd }: { initialServers: ServerSummary[]; canAdd: boolean }) {
  const router = useRouter();
  const now = useNow();
  const { data, error } = usePolling<{ servers: ServerSummary[] }>("/api/servers", { initial: { servers: initialServers } });
  const firing = useFiringCounts();
  const servers = data?.servers ?? initialServers;

  if (servers.length === 0) {
    return (
      <EmptyState
        icon={Server}
        title="No servers yet"
        description="Add a Linux server with one command: it appears here within seconds and starts drawing its disk I/O."
        data-testid="fleet-empty"
        action={
          canAdd ? (
            <Link href="/servers/add" className={buttonVariants()} data-testid="add-server">
              <Plus /> Add server
            </Link>
          ) : (
            <p className="text-sm text-muted-foreground">Ask an owner or admin of your organisation to add one.</p>
          )
        }
      />
    );
  }

  return (
    <div className="grid gap-3">
      {error ? (
        <p className="flex items-center gap-2 text-sm text-destructive" role="status">
          <AlertTriangle className="size-4" aria-hidden /> Could not refresh the list: {error}
        </p>
      ) : null}
      <div className="rounded-xl border bg-card shadow-sm">
        <Table data-testid="fleet-table">
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Hostname</TableHead>
              <TableHead>Status</TableHead>
              <TableHead>Operating system</TableHead>
              <TableHead className="hidden lg:table-cell">Kernel</TableHead>
              <TableHead className="hidden md:table-cell">Agent</TableHead>
              <TableHead>Last seen</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {servers.map((server) => (
              <TableRow
                key={server.id}
                data-testid="fleet-row"
                data-hostname={server.hostname}
                data-server-id={server.id}
                className="cursor-pointer"
                onClick={() => router.push(`/servers/${server.id}`)}
              >
                <TableCell className="font-medium">
                  <Link href={`/servers/${server.id}`} className="hover:underline" onClick={(event) => event.stopPropagation()}>
                    {server.hostname}
                  </Link>
                  <div className="text-xs text-muted-foreground">{server.arch}</div>
                </TableCell>
                <TableCell>
                  <ServerStatusBadge status={server.status} />
                  <FiringCount count={firing.get(server.id) ?? 0} />
                </TableCell>
                <TableCell>{server.osVersion || server.os}</TableCell>
                <TableCell className="hidden font-mono text-xs lg:table-cell">{server.kernel || "—"}</TableCell>
                <TableCell className="hidden font-mono text-xs md:table-cell">{server.agentVersion || "—"}</TableCell>
                <TableCell className="text-muted-foreground" title={server.lastSeenAt ?? undefined}>
                  {now === null ? "" : formatRelative(server.lastSeenAt, now)}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </div>
    </div>
  );
}
