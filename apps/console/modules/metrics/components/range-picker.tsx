"use client";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import { MAX_WINDOW_DAYS, MIN_WINDOW_MS } from "../lib/chart-window";
import type { WindowSelection } from "../lib/window-selection";
import type { MetricsRange } from "../types/metrics";

const ranges: { value: MetricsRange; label: string }[] = [
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
];

/** An ISO time as a datetime-local value in the browser's time zone, to the second. */
function toLocalInput(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The presets, and a custom window (also what a drag-zoom sets), checked before it is asked for. */
export function RangePicker({ value, onChange }: { value: WindowSelection; onChange: (selection: WindowSelection) => void }) {
  const custom = value.range === "custom" ? value : null;
  const [from, setFrom] = useState(custom ? toLocalInput(custom.from) : "");
  const [to, setTo] = useState(custom ? toLocalInput(custom.to) : "");
  const [problem, setProblem] = useState<string | null>(null);
  // Follow zooms and shared links.
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the custom window's two ends, not the object that carries them
  useEffect(() => {
    if (!custom) return;
    setFrom(toLocalInput(custom.from));
    setTo(toLocalInput(custom.to));
  }, [custom?.from, custom?.to]);

  const apply = () => {
    const start = new Date(from).getTime();
    const end = new Date(to).getTime();
    if (!from || !to || Number.isNaN(start) || Number.isNaN(end)) return setProblem("Pick both a start and an end.");
    if (start >= end) return setProblem("The end must be after the start.");
    if (end - start < MIN_WINDOW_MS) return setProblem("A window spans at least 1 minute.");
    if (end - start > MAX_WINDOW_DAYS * 86_400_000) return setProblem(`A window spans at most ${MAX_WINDOW_DAYS} days.`);
    if (start > Date.now()) return setProblem("The start is in the future: there is nothing to draw yet.");
    setProblem(null);
    onChange({ range: "custom", from: new Date(start).toISOString(), to: new Date(end).toISOString() });
  };

  return (
    <div className="flex flex-wrap items-center gap-2">
      {/* biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons laid out in a row, not a form fieldset */}
      <div role="group" aria-label="Time range" className="inline-flex rounded-md border bg-card p-0.5 shadow-sm">
        {ranges.map((range) => (
          <button
            key={range.value}
            type="button"
            aria-pressed={value.range === range.value}
            data-testid={`range-${range.value}`}
            onClick={() => onChange({ range: range.value, to: null, at: null })}
            className={cn(
              "rounded px-3 py-1 text-sm font-medium transition-colors",
              value.range === range.value ? "bg-primary text-primary-foreground" : "text-muted-foreground hover:text-foreground",
            )}
          >
            {range.label}
          </button>
        ))}
      </div>
      <details className="text-sm open:basis-full" open={custom !== null || undefined} data-testid="custom-range">
        <summary className={cn("cursor-pointer rounded px-2 py-1", custom && "font-medium text-foreground")} data-testid="range-custom">
          Custom
        </summary>
        <form
          className="mt-2 flex flex-wrap items-center gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            apply();
          }}
        >
          <label className="flex items-center gap-1">
            From
            <input
              type="datetime-local"
              step={1}
              value={from}
              onChange={(e) => setFrom(e.target.value)}
              className="rounded border bg-card px-2 py-1"
              data-testid="custom-from"
            />
          </label>
          <label className="flex items-center gap-1">
            To
            <input
              type="datetime-local"
              step={1}
              value={to}
              onChange={(e) => setTo(e.target.value)}
              className="rounded border bg-card px-2 py-1"
              data-testid="custom-to"
            />
          </label>
          <Button type="submit" size="sm" variant="outline" data-testid="custom-apply">
            Apply
          </Button>
          {problem ? (
            <span className="text-destructive" role="alert" data-testid="window-problem">
              {problem}
            </span>
          ) : null}
        </form>
      </details>
    </div>
  );
}
