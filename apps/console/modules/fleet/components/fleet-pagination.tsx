"use client";
import { ChevronLeft, ChevronRight } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/select";
import { fleetPageSizes } from "../types/fleet-query";

/** Where this page is among the matching servers, and the way to the others. */
export function FleetPagination({
  page,
  pageSize,
  total,
  onPage,
  onPageSize,
}: {
  page: number;
  pageSize: number;
  total: number;
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : Math.min(total, (page - 1) * pageSize + 1);
  const last = Math.min(total, page * pageSize);
  return (
    <nav className="flex flex-wrap items-center justify-between gap-3 text-sm" aria-label="Pages" data-testid="fleet-pagination">
      <span className="text-muted-foreground" data-testid="fleet-range">
        {page > pages
          ? `Page ${page} is past the last page (${pages}).`
          : `${first.toLocaleString("en")}–${last.toLocaleString("en")} of ${total.toLocaleString("en")}`}
      </span>
      <div className="flex items-center gap-2">
        <label className="flex items-center gap-2 text-muted-foreground">
          Per page
          <Select
            aria-label="Servers per page"
            className="h-8 w-20"
            value={pageSize}
            onChange={(event) => onPageSize(Number(event.target.value))}
          >
            {fleetPageSizes.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </Select>
        </label>
        <Button
          variant="outline"
          size="sm"
          disabled={page <= 1}
          onClick={() => onPage(Math.min(page - 1, pages))}
          data-testid="fleet-page-prev"
        >
          <ChevronLeft /> Previous
        </Button>
        <span className="tabular-nums" data-testid="fleet-page" data-page={page}>
          {Math.min(page, pages)} / {pages}
        </span>
        <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => onPage(page + 1)} data-testid="fleet-page-next">
          Next <ChevronRight />
        </Button>
      </div>
    </nav>
  );
}
