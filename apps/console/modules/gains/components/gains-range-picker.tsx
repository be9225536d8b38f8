"use client";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import type { GainsPreset, GainsSelection } from "../types/range";

const presets: { value: GainsPreset; label: string }[] = [
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
];

/** datetime-local works in the browser's time zone; the API takes ISO with an offset. */
const toIso = (local: string) => new Date(local).toISOString();

export function GainsRangePicker({ value, onChange }: { value: GainsSelection; onChange: (selection: GainsSelection) => void }) {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const applyCustom = () => {
    if (!from || !to) return setProblem("Pick both a start and an end.");
    if (new Date(from) >= new Date(to)) return setProblem("The end must be after the start.");
    setProblem(null);
    onChange({ range: "custom", from: toIso(from), to: toIso(to) });
  };
  return (
    <div className="flex flex-wrap items-center gap-2">
      {/* biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons laid out in a row, not a form fieldset */}
      <div role="group" aria-label="Time range" className="inline-flex rounded-md border bg-card p-0.5 shadow-sm">
        {presets.map((preset) => (
          <button
            key={preset.value}
            type="button"
            aria-pressed={value.range === preset.value}
            data-testid={`gains-range-${preset.value}`}
            onClick={() => onChange({ range: preset.value })}
            className={cn(
              "rounded px-3 py-1 text-sm font-medium transition-colors",
              value.range === preset.value ? "bg-primary text-primary-foreground" : "text-muted-foreground hover:text-foreground",
            )}
          >
            {preset.label}
          </button>
        ))}
      </div>
      <details className="text-sm open:basis-full" open={value.range === "custom" || undefined}>
        <summary
          className={cn("cursor-pointer rounded px-2 py-1", value.range === "custom" && "font-medium")}
          data-testid="gains-range-custom"
        >
          Custom
        </summary>
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <label className="flex items-center gap-1">
            From{" "}
            <input
              type="datetime-local"
              value={from}
              onChange={(e) => setFrom(e.target.value)}
              className="rounded border px-2 py-1"
              data-testid="gains-custom-from"
            />
          </label>
          <label className="flex items-center gap-1">
            To{" "}
            <input
              type="datetime-local"
              value={to}
              onChange={(e) => setTo(e.target.value)}
              className="rounded border px-2 py-1"
              data-testid="gains-custom-to"
            />
          </label>
          <Button type="button" size="sm" variant="outline" onClick={applyCustom} data-testid="gains-custom-apply">
            Apply
          </Button>
          {problem ? (
            <span className="text-destructive" role="alert">
              {problem}
            </span>
          ) : null}
        </div>
      </details>
    </div>
  );
}
