"use client";
import { AlertTriangle, Plus, SearchX, Server } from "lucide-react";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useState } from "react";
import { Button, buttonVariants } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { fetchJson } from "@/lib/fetch-json";
import { usePolling } from "@/lib/use-polling";
import { useUrlQuery } from "@/lib/use-url-query";
import type { FleetFacets, FleetPage } from "../types/fleet";
import { filterOf, fleetFilterKeys, fleetQuerySchema, fleetQueryString, type FleetFilter, type FleetQuery } from "../types/fleet-query";
import { BulkBar } from "./bulk-bar";
import { BulkDialog, type BulkKind } from "./bulk-dialog";
import { FleetFilters } from "./fleet-filters";
import { FleetGroups } from "./fleet-groups";
import { FleetPagination } from "./fleet-pagination";
import { FleetTable } from "./fleet-table";

interface Props {
  initial: FleetPage;
  initialQuery: string;
  initialFacets: FleetFacets;
  canAdd: boolean;
  canAct: boolean;
  canRevoke: boolean;
}

/**
 * The fleet page: its state is the URL (search, filters, sort, page, grouping), so every view
 * can be shared; the server filters, sorts and pages, and the page refreshes every 10 s.
 */
export function FleetView({ initial, initialQuery, initialFacets, canAdd, canAct, canRevoke }: Props) {
  const { params, setParams } = useUrlQuery();
  const parsed = fleetQuerySchema.safeParse(Object.fromEntries(params));
  const query: FleetQuery = parsed.success ? parsed.data : fleetQuerySchema.parse({});
  const queryString = fleetQueryString(query);
  const filterKey = fleetQueryString(filterOf(query));
  const { data, error, loading, refresh } = usePolling<FleetPage>(`/api/servers?${queryString}`, {
    initial: queryString === initialQuery ? initial : undefined,
  });
  const page = data ?? initial;
  const [facets, setFacets] = useState(initialFacets);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  const [dialog, setDialog] = useState<BulkKind | null>(null);

  // A selection belongs to the filters it was made under.
  // biome-ignore lint/correctness/useExhaustiveDependencies: clears the selection when the filters change, which is the point
  useEffect(() => {
    setSelected(new Set());
    setAllMatching(false);
  }, [filterKey]);

  const update = useCallback(
    (change: (next: URLSearchParams) => void, mode: "push" | "replace" = "push") => {
      const next = new URLSearchParams(window.location.search);
      change(next);
      setParams(next, mode);
    },
    [setParams],
  );

  const setFilter = useCallback(
    (key: keyof FleetFilter, value: string | undefined, mode: "push" | "replace" = "push") =>
      update((next) => {
        if (value === undefined) next.delete(key);
        else next.set(key, value);
        if (key === "tag" && value) next.delete("untagged");
        if (key === "untagged" && value) next.delete("tag");
        next.delete("page");
      }, mode),
    [update],
  );

  const clearFilters = () =>
    update((next) => {
      for (const key of [...fleetFilterKeys, "page"]) next.delete(key);
    });
  const pickTag = (tag: string | null) =>
    update((next) => {
      next.delete("page");
      if (tag === null) {
        next.delete("tag");
        next.set("untagged", "true");
      } else {
        next.delete("untagged");
        next.set("tag", tag);
      }
    });

  const matchingCount = allMatching ? page.total : selected.size;
  const selectedIds = useMemo(() => [...selected], [selected]);
  const closeDialog = (changed: boolean) => {
    setDialog(null);
    if (!changed) return;
    setSelected(new Set());
    setAllMatching(false);
    void refresh();
    fetchJson<{ facets: FleetFacets }>("/api/servers/facets").then(
      (answer) => setFacets(answer.facets),
      () => {},
    );
  };

  if (!parsed.success) {
    return (
      <div
        className="grid gap-3 rounded-xl border border-destructive/40 bg-destructive/5 p-4 text-sm"
        role="alert"
        data-testid="fleet-query-error"
      >
        <p className="font-medium">This fleet view&apos;s link is not valid:</p>
        <ul className="list-disc pl-5">
          {parsed.error.issues.map((issue) => (
            <li key={`${issue.path.join(".")}: ${issue.message}`}>
              {issue.path.length ? `${issue.path.join(".")}: ` : ""}
              {issue.message}
            </li>
          ))}
        </ul>
        <Link href="/servers" className={buttonVariants({ variant: "outline", size: "sm" })} data-testid="clear-filters">
          Show the whole fleet
        </Link>
      </div>
    );
  }

  if (page.fleetSize === 0) {
    return (
      <EmptyState
        icon={Server}
        title="No servers yet"
        data-testid="fleet-empty"
        description="Add a Linux server with one command: it appears here within seconds and starts drawing its disk I/O."
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

  const shown = page.servers;
  return (
    <div className="grid grid-cols-1 gap-4">
      <FleetFilters
        filter={filterOf(query)}
        facets={facets}
        grouped={query.group === "tag"}
        onChange={setFilter}
        onClear={clearFilters}
        onGroup={(grouped) => update((next) => (grouped ? next.set("group", "tag") : next.delete("group")))}
      />
      {error ? (
        <p className="flex items-center gap-2 text-sm text-destructive" role="status" data-testid="fleet-error">
          <AlertTriangle className="size-4" aria-hidden /> Could not refresh the list: {error}
        </p>
      ) : null}
      {query.group === "tag" && page.groups ? (
        <FleetGroups groups={page.groups} onPick={pickTag} activeTag={query.tag} untagged={query.untagged === "true"} />
      ) : null}
      <p className="text-sm text-muted-foreground" data-testid="fleet-total" data-total={page.total} data-fleet-size={page.fleetSize}>
        {page.total === page.fleetSize
          ? `${page.total.toLocaleString("en")} servers`
          : `${page.total.toLocaleString("en")} of ${page.fleetSize.toLocaleString("en")} servers match`}
      </p>
      {matchingCount > 0 ? (
        <BulkBar
          count={matchingCount}
          pageCount={shown.length}
          total={page.total}
          allMatching={allMatching}
          selectedIds={selectedIds}
          canAct={canAct}
          canRevoke={canRevoke}
          onAllMatching={() => setAllMatching(true)}
          onAction={setDialog}
          onClear={() => {
            setSelected(new Set());
            setAllMatching(false);
          }}
        />
      ) : null}
      {page.total === 0 ? (
        <EmptyState
          icon={SearchX}
          title="No server matches"
          data-testid="fleet-no-match"
          description="Nothing in your fleet matches this search and these filters."
          action={
            <Button variant="outline" onClick={clearFilters}>
              Clear filters
            </Button>
          }
        />
      ) : (
        <>
          <FleetTable
            rows={shown}
            query={query}
            dimmed={loading}
            selected={selected}
            allMatching={allMatching}
            onSort={(sort, dir) =>
              update((next) => {
                next.set("sort", sort);
                next.set("dir", dir);
                next.delete("page");
              })
            }
            onToggle={(id) =>
              setSelected((current) => {
                const next = new Set(current);
                if (next.has(id)) next.delete(id);
                else next.add(id);
                return next;
              })
            }
            onTogglePage={(select) =>
              setSelected((current) => {
                const next = new Set(current);
                for (const row of shown)
                  if (select) next.add(row.id);
                  else next.delete(row.id);
                return next;
              })
            }
            onTag={(tag) => pickTag(tag)}
          />
          <FleetPagination
            page={query.page}
            pageSize={query.pageSize}
            total={page.total}
            onPage={(n) => update((next) => (n <= 1 ? next.delete("page") : next.set("page", String(n))))}
            onPageSize={(size) =>
              update((next) => {
                next.set("pageSize", String(size));
                next.delete("page");
              })
            }
          />
        </>
      )}
      {dialog ? (
        <BulkDialog
          kind={dialog}
          count={matchingCount}
          knownTags={facets.tags.map((t) => t.value)}
          onClose={closeDialog}
          target={allMatching ? { filter: filterOf(query), expectedCount: page.total } : { serverIds: selectedIds }}
        />
      ) : null}
    </div>
  );
}
