"use client";
import { alertSeverities, alertStates } from "@spindle/domain";
import { BellOff, History, LineChart } from "lucide-react";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { fetchJson } from "@/lib/fetch-json";
import { formatDateTime } from "@/lib/format";
import { REFRESH_INTERVAL_MS } from "@/lib/use-polling";
import { chartLinkForAlert } from "../lib/chart-link";
import type { AlertHistoryEntry, SilenceTargets } from "../types/alerts";
import { AcknowledgedMark } from "./acknowledged-mark";
import { SeverityBadge, StateBadge, stateWord } from "./alert-badges";
import { AlertValueText } from "./alert-value";

interface Filters {
  state: string;
  severity: string;
  ruleId: string;
  serverId: string;
  from: string;
  to: string;
}

const noFilters: Filters = { state: "", severity: "", ruleId: "", serverId: "", from: "", to: "" };

function queryOf(filters: Filters, after?: string): string {
  const query = new URLSearchParams();
  for (const key of ["state", "severity", "ruleId", "serverId"] as const) if (filters[key]) query.set(key, filters[key]);
  // datetime-local has no offset: the browser's time zone, sent as UTC.
  if (filters.from) query.set("from", new Date(filters.from).toISOString());
  if (filters.to) query.set("to", new Date(filters.to).toISOString());
  if (after) query.set("after", after);
  return query.toString();
}

/** Every state change, newest first, with filters; silenced changes are marked, not hidden. Refreshes every 10 s on the first page. */
export function AlertHistory({ targets }: { targets: SilenceTargets }) {
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [entries, setEntries] = useState<AlertHistoryEntry[] | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  // While the first page is shown it follows new changes; once older pages are loaded it holds still.
  const [paged, setPaged] = useState(false);

  const latest = useRef(0);

  async function load(next: Filters, after?: string) {
    const request = ++latest.current;
    setPaged(after !== undefined);
    setLoading(true);
    setError(null);
    try {
      const page = await fetchJson<{ entries: AlertHistoryEntry[]; more: boolean }>(`/api/alerts/history?${queryOf(next, after)}`, {
        cache: "no-store",
      });
      if (request !== latest.current) return; // filters changed or a refresh overtook it
      setEntries((previous) => (after && previous ? [...previous, ...page.entries] : page.entries));
      setMore(page.more);
    } catch (failure) {
      if (request === latest.current) setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      if (request === latest.current) setLoading(false);
    }
  }

  // biome-ignore lint/correctness/useExhaustiveDependencies: load is recreated every render; a change of filters is what starts a load
  useEffect(() => {
    void load(filters);
  }, [filters]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: load is recreated every render; the timer restarts when the filters or paging change
  useEffect(() => {
    if (paged) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void load(filters);
    }, REFRESH_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [filters, paged]);

  const set = (key: keyof Filters) => (event: { target: { value: string } }) => setFilters((f) => ({ ...f, [key]: event.target.value }));

  return (
    <div className="grid gap-3">
      <div className="grid gap-3 rounded-lg border bg-card p-3 sm:grid-cols-2 lg:grid-cols-4 2xl:grid-cols-7" data-testid="history-filters">
        <div className="grid gap-1">
          <Label htmlFor="history-state">Changed to</Label>
          <Select id="history-state" value={filters.state} onChange={set("state")}>
            <option value="">any state</option>
            {alertStates.map((s) => (
              <option key={s} value={s}>
                {stateWord(s)}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="history-severity">Severity</Label>
          <Select id="history-severity" value={filters.severity} onChange={set("severity")}>
            <option value="">any severity</option>
            {alertSeverities.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="history-rule">Rule</Label>
          <Select id="history-rule" value={filters.ruleId} onChange={set("ruleId")}>
            <option value="">any rule</option>
            {targets.rules.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="history-server">Server</Label>
          <Select id="history-server" value={filters.serverId} onChange={set("serverId")}>
            <option value="">any server</option>
            {targets.servers.map((s) => (
              <option key={s.id} value={s.id}>
                {s.hostname}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="history-from">From</Label>
          <Input id="history-from" type="datetime-local" value={filters.from} onChange={set("from")} />
        </div>
        <div className="grid gap-1">
          <Label htmlFor="history-to">To</Label>
          <Input id="history-to" type="datetime-local" value={filters.to} onChange={set("to")} />
        </div>
        <div className="flex items-end">
          <Button variant="ghost" onClick={() => setFilters(noFilters)} data-testid="history-clear">
            Clear filters
          </Button>
        </div>
      </div>
      <FormError message={error} />
      {entries === null ? (
        loading ? (
          <Skeleton className="h-24 w-full" data-testid="history-loading" />
        ) : null
      ) : entries.length === 0 ? (
        <EmptyState
          icon={History}
          title="No state changes"
          className="py-8"
          data-testid="history-empty"
          description={
            filters === noFilters
              ? "Alerts have not changed state yet. Each pending, firing, resolved or no-data change will be listed here."
              : "Nothing matches these filters."
          }
        />
      ) : (
        <div className="rounded-xl border bg-card shadow-sm">
          <Table data-testid="alert-history">
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>When</TableHead>
                <TableHead>Change</TableHead>
                <TableHead>Rule</TableHead>
                <TableHead>Server / device</TableHead>
                <TableHead>Value</TableHead>
                <TableHead className="w-px" />
              </TableRow>
            </TableHeader>
            <TableBody>
              {entries.map((entry) => (
                <TableRow
                  key={entry.id}
                  data-testid="history-row"
                  data-to={entry.to}
                  data-rule={entry.ruleName}
                  data-component={entry.component}
                  data-silenced={entry.silenced ? "true" : "false"}
                >
                  <TableCell className="whitespace-nowrap text-sm">{formatDateTime(entry.at)}</TableCell>
                  <TableCell>
                    <div className="flex flex-wrap items-center gap-1 text-xs">
                      <StateBadge state={entry.from} from /> → <StateBadge state={entry.to} />
                    </div>
                  </TableCell>
                  <TableCell className="text-sm">
                    <div className="flex flex-wrap items-center gap-1.5">
                      {entry.ruleId ? (
                        <Link href={`/alerts/rules/${entry.ruleId}`} className="font-medium hover:underline">
                          {entry.ruleName}
                        </Link>
                      ) : (
                        <span className="font-medium">{entry.ruleName}</span>
                      )}
                      <SeverityBadge severity={entry.severity} />
                      {entry.silenced ? (
                        <Badge variant="secondary" data-testid="history-silenced">
                          <BellOff className="size-3" aria-hidden /> silenced
                        </Badge>
                      ) : null}
                    </div>
                    {entry.acknowledgement ? <AcknowledgedMark ack={entry.acknowledgement} testId="history-acknowledged" /> : null}
                  </TableCell>
                  <TableCell className="text-sm">
                    <Link href={`/servers/${entry.serverId}`} className="hover:underline">
                      {entry.hostname}
                    </Link>
                    {entry.component ? <span className="text-muted-foreground"> · {entry.component}</span> : null}
                  </TableCell>
                  <TableCell className="max-w-sm text-sm">
                    <AlertValueText value={entry.value} />
                  </TableCell>
                  <TableCell>
                    <Link
                      href={chartLinkForAlert(entry.serverId, entry.at)}
                      className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground"
                      data-testid="history-chart-link"
                    >
                      <LineChart className="size-4" aria-hidden /> Chart
                    </Link>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </div>
      )}
      {more && entries ? (
        <Button variant="outline" disabled={loading} onClick={() => load(filters, entries.at(-1)!.id)} data-testid="history-older">
          {loading ? "Loading…" : "Older changes"}
        </Button>
      ) : null}
    </div>
  );
}
