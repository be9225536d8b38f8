"use client";
import { cn } from "@/lib/utils";
import type { MetricsRange } from "../types/metrics";

const ranges: { value: MetricsRange; label: string }[] = [
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
];

export function RangePicker({ value, onChange }: { value: MetricsRange; onChange: (range: MetricsRange) => void }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons laid out in a row, not a form fieldset
    <div role="group" aria-label="Time range" className="inline-flex rounded-md border bg-card p-0.5 shadow-sm">
      {ranges.map((range) => (
        <button
          key={range.value}
          type="button"
          aria-pressed={value === range.value}
          data-testid={`range-${range.value}`}
          onClick={() => onChange(range.value)}
          className={cn(
            "rounded px-3 py-1 text-sm font-medium transition-colors",
            value === range.value ? "bg-primary text-primary-foreground" : "text-muted-foreground hover:text-foreground",
          )}
        >
          {range.label}
        </button>
      ))}
    </div>
  );
}
