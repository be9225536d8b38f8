"use client";
import { GitCompare, ShieldOff, Tag, Tags, X } from "lucide-react";
import Link from "next/link";
import { Button, buttonVariants } from "@/components/ui/button";
import type { BulkKind } from "./bulk-dialog";

/** The comparison view draws 2 to 4 servers on one chart. */
export const COMPARE_MIN = 2;
export const COMPARE_MAX = 4;

/**
 * What can be done with the selection: select every matching server (beyond this page), tag,
 * untag, assign a policy and revoke for those allowed to change the fleet, compare for anyone.
 */
export function BulkBar({
  count,
  pageCount,
  total,
  allMatching,
  selectedIds,
  canAct,
  canRevoke,
  onAllMatching,
  onAction,
  onClear,
}: {
  count: number;
  pageCount: number;
  total: number;
  allMatching: boolean;
  selectedIds: string[];
  canAct: boolean;
  canRevoke: boolean;
  onAllMatching: () => void;
  onAction: (kind: BulkKind) => void;
  onClear: () => void;
}) {
  const compare = !allMatching && selectedIds.length >= COMPARE_MIN && selectedIds.length <= COMPARE_MAX;
  return (
    <div
      className="sticky top-16 z-[5] flex flex-wrap items-center gap-2 rounded-xl border border-primary/30 bg-card p-2 shadow-md"
      data-testid="bulk-bar"
      data-count={count}
    >
      <span className="px-2 text-sm font-medium" data-testid="selected-count">
        {count === 1 ? "1 server selected" : `${count.toLocaleString("en")} servers selected`}
      </span>
      {!allMatching && count === pageCount && total > pageCount ? (
        <Button variant="link" size="sm" onClick={onAllMatching} data-testid="select-all-matching">
          Select all {total.toLocaleString("en")} matching
        </Button>
      ) : null}
      <div className="ml-auto flex flex-wrap items-center gap-2">
        {canAct ? (
          <>
            <Button variant="outline" size="sm" onClick={() => onAction("tag")} data-testid="bulk-tag">
              <Tag /> Tag
            </Button>
            <Button variant="outline" size="sm" onClick={() => onAction("untag")} data-testid="bulk-untag">
              <Tags /> Untag
            </Button>
            <Button variant="outline" size="sm" onClick={() => onAction("assign-policy")} data-testid="bulk-assign">
              Assign policy
            </Button>
          </>
        ) : null}
        {canRevoke ? (
          <Button variant="outline" size="sm" onClick={() => onAction("revoke")} data-testid="bulk-revoke">
            <ShieldOff /> Revoke
          </Button>
        ) : null}
        {compare ? (
          <Link
            href={`/servers/compare?servers=${selectedIds.join(",")}`}
            className={buttonVariants({ variant: "outline", size: "sm" })}
            data-testid="compare-selected"
          >
            <GitCompare /> Compare
          </Link>
        ) : (
          <span className="text-xs text-muted-foreground">
            Select {COMPARE_MIN}–{COMPARE_MAX} servers to compare them
          </span>
        )}
        <Button variant="ghost" size="sm" onClick={onClear} data-testid="clear-selection">
          <X /> Clear
        </Button>
      </div>
    </div>
  );
}
