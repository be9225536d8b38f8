"use client";
import Link from "next/link";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { FleetGroup } from "../types/fleet";
import { CausedCell, LatencyCell } from "./figure-cells";

/**
 * The matching servers grouped by tag (a server with two tags counts in both; "No tag" holds
 * the rest): how many, online, with a firing alert, and the headline figures. Picking a group
 * filters the list below to it.
 */
export function FleetGroups({
  groups,
  onPick,
  activeTag,
  untagged,
}: {
  groups: FleetGroup[];
  onPick: (tag: string | null) => void;
  activeTag: string | undefined;
  untagged: boolean;
}) {
  return (
    <section className="rounded-xl border bg-card shadow-sm" aria-labelledby="fleet-groups-title" data-testid="fleet-groups">
      <h2 id="fleet-groups-title" className="px-4 pt-3 text-sm font-semibold">
        Groups by tag
      </h2>
      {groups.length === 0 ? (
        <p className="px-4 pb-3 text-sm text-muted-foreground">No server matches, so there is no group.</p>
      ) : (
        <Table className="min-w-[720px]">
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Tag</TableHead>
              <TableHead className="text-right">Servers</TableHead>
              <TableHead className="text-right">Online</TableHead>
              <TableHead className="text-right">Firing</TableHead>
              <TableHead title="p99 of storage reads over the last hour, merged eBPF latency histograms of the group (descriptive)">
                p99 read, 1 h
              </TableHead>
              <TableHead title="Reads saved by the read cache against its holdout (caused, with an interval)">
                Caused read-cache gains
              </TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {groups.map((group) => {
              const active = group.tag === null ? untagged : group.tag === activeTag;
              return (
                <TableRow
                  key={group.tag ?? "(none)"}
                  data-testid="fleet-group"
                  data-tag={group.tag ?? ""}
                  data-servers={group.servers}
                  data-online={group.online}
                  data-firing={group.firing}
                  aria-current={active || undefined}
                  className={active ? "bg-accent/60" : undefined}
                >
                  <TableCell>
                    <button
                      type="button"
                      onClick={() => onPick(group.tag)}
                      className="font-medium hover:underline"
                      data-testid="pick-group"
                    >
                      {group.tag === null ? (
                        <span className="italic text-muted-foreground">No tag</span>
                      ) : (
                        <span className="font-mono">{group.tag}</span>
                      )}
                    </button>
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{group.servers}</TableCell>
                  <TableCell className="text-right tabular-nums">{group.online}</TableCell>
                  <TableCell className={`text-right tabular-nums ${group.firing > 0 ? "font-medium text-destructive" : ""}`}>
                    {group.firing}
                  </TableCell>
                  <TableCell>
                    <LatencyCell figure={group.p99ReadLatency} testId="group-p99" />
                  </TableCell>
                  <TableCell>
                    <CausedCell figure={group.causedReadCacheGains} testId="group-caused" />
                    {group.causedReadCacheGains.status === "not-measured" ? (
                      <Link href="/gains" className="ml-2 text-xs text-primary hover:underline" data-testid="group-caused-link">
                        per server on Gains
                      </Link>
                    ) : null}
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      )}
    </section>
  );
}
