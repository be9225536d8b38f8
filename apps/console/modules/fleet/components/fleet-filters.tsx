"use client";
import { Filter, Search, X } from "lucide-react";
import { useEffect, useState } from "react";
import { capabilityCatalogue } from "@spindle/domain";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import type { FleetFacets } from "../types/fleet";
import { fleetAlertFilters, fleetPolicyStates, fleetStatuses, type FleetFilter } from "../types/fleet-query";

type FilterKey = Exclude<keyof FleetFilter, "q">;

interface Props {
  filter: FleetFilter;
  facets: FleetFacets;
  grouped: boolean;
  onChange: (key: keyof FleetFilter, value: string | undefined, mode?: "push" | "replace") => void;
  onGroup: (grouped: boolean) => void;
  onClear: () => void;
}

const alertLabels: Record<(typeof fleetAlertFilters)[number], string> = {
  firing: "Any firing alert",
  critical: "Critical firing",
  warning: "Warning firing",
  info: "Info firing",
  none: "Nothing firing",
};

/** One labelled native select; "" is "any". A value the fleet no longer has stays listed, marked, so the URL and the page agree. */
function FilterSelect({
  label,
  name,
  value,
  options,
  onChange,
}: {
  label: string;
  name: FilterKey;
  value: string | undefined;
  options: { value: string; label: string }[];
  onChange: Props["onChange"];
}) {
  const listed = value === undefined || options.some((option) => option.value === value);
  return (
    <label className={labelClass}>
      {label}
      <Select
        aria-label={label}
        data-testid={`filter-${name}`}
        value={value ?? ""}
        onChange={(event) => onChange(name, event.target.value || undefined)}
        className="h-8 text-sm text-foreground"
      >
        <option value="">Any</option>
        {listed ? null : <option value={value}>{value} (no server)</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </Select>
    </label>
  );
}

/** Two filters a row on a phone, a fixed width beyond, whatever their options' lengths. */
const labelClass = "grid w-[calc(50%-0.375rem)] gap-1 text-xs font-medium text-muted-foreground sm:w-44";

const counted = (values: { value: string; servers: number }[]) =>
  values.map((v) => ({ value: v.value, label: `${v.value} (${v.servers})` }));

/** Search and every filter of the fleet, each written to the URL as it changes. */
export function FleetFilters({ filter, facets, grouped, onChange, onGroup, onClear }: Props) {
  const [search, setSearch] = useState(filter.q ?? "");
  // Follow the URL when it changes from elsewhere (Back, a tag clicked in a row, "clear").
  useEffect(() => setSearch(filter.q ?? ""), [filter.q]);
  useEffect(() => {
    if ((filter.q ?? "") === search.trim()) return;
    const timer = setTimeout(() => onChange("q", search.trim() || undefined, "replace"), 250);
    return () => clearTimeout(timer);
  }, [search, filter.q, onChange]);
  const active = Object.keys(filter).length > 0;
  const chosen = Object.keys(filter).filter((key) => key !== "q").length;
  // On a phone the filters fold away behind one button; from md up they are always shown.
  const [open, setOpen] = useState(false);
  const tagValue = filter.untagged ? "__untagged" : filter.tag;
  return (
    <div className="grid gap-3 rounded-xl border bg-card p-3 shadow-sm" data-testid="fleet-filters">
      <div className="flex flex-wrap items-center gap-2">
        <div className="relative min-w-0 flex-1 basis-56">
          <Search className="pointer-events-none absolute left-2.5 top-2.5 size-4 text-muted-foreground" aria-hidden />
          <Input
            type="search"
            aria-label="Search"
            placeholder="Search hostnames and tags"
            value={search}
            data-testid="fleet-search"
            onChange={(event) => setSearch(event.target.value)}
            className="pl-8"
            maxLength={200}
          />
        </div>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={grouped}
            onChange={(event) => onGroup(event.target.checked)}
            data-testid="group-by-tag"
            className="size-4 accent-primary"
          />
          Group by tag
        </label>
        <Button
          variant="outline"
          size="sm"
          className="md:hidden"
          aria-expanded={open}
          aria-controls="fleet-filter-fields"
          onClick={() => setOpen((value) => !value)}
          data-testid="toggle-filters"
        >
          <Filter /> Filters{chosen > 0 ? ` (${chosen})` : ""}
        </Button>
        {active ? (
          <Button variant="ghost" size="sm" onClick={onClear} data-testid="clear-filters">
            <X /> Clear filters
          </Button>
        ) : null}
      </div>
      <div id="fleet-filter-fields" className={`${open ? "flex" : "hidden"} flex-wrap gap-3 md:flex`}>
        <FilterSelect
          label="Status"
          name="status"
          value={filter.status}
          onChange={onChange}
          options={fleetStatuses.map((s) => ({ value: s, label: s === "waiting" ? "Waiting for data" : s[0]!.toUpperCase() + s.slice(1) }))}
        />
        <label className={labelClass}>
          Tag
          <Select
            aria-label="Tag"
            data-testid="filter-tag"
            value={tagValue ?? ""}
            className="h-8 text-sm text-foreground"
            onChange={(event) => {
              const value = event.target.value;
              if (value === "__untagged") onChange("untagged", "true");
              else onChange("tag", value || undefined);
            }}
          >
            <option value="">Any</option>
            <option value="__untagged">No tag</option>
            {filter.tag && !facets.tags.some((t) => t.value === filter.tag) ? (
              <option value={filter.tag}>{filter.tag} (no server)</option>
            ) : null}
            {counted(facets.tags).map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </Select>
        </label>
        <FilterSelect label="Operating system" name="os" value={filter.os} onChange={onChange} options={counted(facets.os)} />
        <FilterSelect label="Kernel" name="kernel" value={filter.kernel} onChange={onChange} options={counted(facets.kernels)} />
        <FilterSelect label="Agent version" name="agent" value={filter.agent} onChange={onChange} options={counted(facets.agentVersions)} />
        <FilterSelect
          label="Missing capability"
          name="missing"
          value={filter.missing}
          onChange={onChange}
          options={capabilityCatalogue.map((c) => ({ value: c.name, label: c.label }))}
        />
        <FilterSelect
          label="Alerts"
          name="alert"
          value={filter.alert}
          onChange={onChange}
          options={fleetAlertFilters.map((a) => ({ value: a, label: alertLabels[a] }))}
        />
        <FilterSelect
          label="Policy"
          name="policy"
          value={filter.policy}
          onChange={onChange}
          options={fleetPolicyStates.map((p) => ({ value: p, label: p[0]!.toUpperCase() + p.slice(1) }))}
        />
      </div>
    </div>
  );
}
