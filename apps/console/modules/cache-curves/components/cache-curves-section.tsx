"use client";
import { AlertTriangle } from "lucide-react";
import { useState } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Select } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { formatBytes, formatDateTime, formatNumber } from "@/lib/format";
import { cn } from "@/lib/utils";
import { usePolling } from "@/lib/use-polling";
import { curveLabel, hitRatioAt } from "../lib/hit-ratio-at";
import type { CacheCurve, CacheCurves, CurveMarker } from "../types/cache-curves";
import { CurveChart, type ChartMark } from "./curve-chart";

const budgetColor = "#ea580c";
const spareColor = "#16a34a";

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
const formatWindow = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60} min` : `${Math.round(seconds)} s`);

function MarkerLine({
  label,
  color,
  marker,
  curve,
  missing,
}: {
  label: string;
  color: string;
  marker: CurveMarker | null;
  curve: CacheCurve;
  missing: string;
}) {
  if (!marker) {
    return (
      <li data-testid={`curve-mark-${label === "Read-cache budget" ? "budget" : "spare"}`}>
        <span className="font-medium">{label}:</span> not measured <span className="text-muted-foreground">({missing})</span>
      </li>
    );
  }
  const hit = hitRatioAt(curve, marker.bytes);
  return (
    <li data-testid={`curve-mark-${label === "Read-cache budget" ? "budget" : "spare"}`}>
      <span className="mr-1 inline-block h-0 w-4 border-t-2 border-dashed align-middle" style={{ borderColor: color }} aria-hidden />
      <span className="font-medium">{label}:</span> {formatBytes(marker.bytes)}
      {hit === null ? " (below the curve's first size)" : `, LRU hit ratio ${percent(hit)} at that size`}
      <span className="text-muted-foreground"> — {marker.basis}</span>
    </li>
  );
}

/** The miss-ratio curves of a server: what hit ratio each cache size would have had. */
export function CacheCurvesSection({ serverId }: { serverId: string }) {
  const [end, setEnd] = useState<string | null>(null);
  const [picked, setPicked] = useState(0);
  const url = `/api/servers/${serverId}/cache-curves${end ? `?end=${encodeURIComponent(end)}` : ""}`;
  const { data, error } = usePolling<CacheCurves>(url, { intervalMs: 60_000 });
  const curve = data?.curves[Math.min(picked, (data?.curves.length ?? 1) - 1)];
  const marks: ChartMark[] = [];
  if (data?.readCacheBudget) marks.push({ label: "Read-cache budget", color: budgetColor, marker: data.readCacheBudget });
  if (data?.spareMemory) marks.push({ label: "Spare memory", color: spareColor, marker: data.spareMemory });
  return (
    <Card data-testid="cache-curves">
      <CardHeader>
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <CardTitle className="text-base">Miss-ratio curves</CardTitle>
            <CardDescription>
              The hit ratio an LRU cache of each size would have had on this server&apos;s own accesses, from a hashed sample the agent
              takes in the kernel.
            </CardDescription>
          </div>
          {data && data.windows.length > 0 ? (
            <label className="flex items-center gap-2 text-sm">
              Window ending
              <Select className="w-56" value={data.end ?? ""} onChange={(e) => setEnd(e.target.value)} data-testid="curve-window">
                {data.windows.map((w) => (
                  <option key={w.end} value={w.end}>
                    {formatDateTime(w.end)} ({formatWindow(w.windowSeconds)})
                  </option>
                ))}
              </Select>
            </label>
          ) : null}
        </div>
      </CardHeader>
      <CardContent className="grid gap-4">
        {error ? (
          <p className="flex items-center gap-2 text-sm text-destructive" role="alert">
            <AlertTriangle className="size-4" aria-hidden /> Could not load the curves: {error}
          </p>
        ) : null}
        {!data ? (
          <Skeleton className="h-40" />
        ) : !curve ? (
          <p className="text-sm text-muted-foreground" data-testid="curves-none">
            No curve yet: the agent sends one per window (5 minutes by default) once its miss-ratio sampler runs, which needs eBPF and
            kernel 6.10 or newer (capability ebpf.mrc).
          </p>
        ) : (
          <>
            {/* biome-ignore lint/a11y/useSemanticElements: a group of toggle buttons laid out in a row, not a form fieldset */}
            <div role="group" aria-label="Curve" className="flex flex-wrap gap-1">
              {data.curves.map((c, i) => (
                <button
                  key={`${c.curve}:${c.scope}`}
                  type="button"
                  aria-pressed={c === curve}
                  onClick={() => setPicked(i)}
                  data-testid={`curve-pick-${c.curve}`}
                  className={cn(
                    "rounded border px-3 py-1 text-sm",
                    c === curve ? "bg-primary text-primary-foreground" : "text-muted-foreground hover:text-foreground",
                  )}
                >
                  {curveLabel(c)}
                </button>
              ))}
            </div>
            <CurveChart curve={curve} marks={marks} />
            <p className="text-sm text-muted-foreground" data-testid="curve-basis">
              Basis: {formatNumber(curve.sampledAccesses)} sampled accesses at a sampling rate of {percent(curve.sampleRate)}, over the{" "}
              {formatWindow(curve.windowSeconds)} window ending {formatDateTime(data.end!)}. The curve starts at 1/rate of a{" "}
              {curve.curve === "block" ? "block" : "page"} (smaller sizes cannot be told apart in the sample) and is an LRU model: the
              kernel&apos;s page cache behaves close to it, not exactly.
            </p>
            <ul className="grid gap-1 text-sm">
              <MarkerLine
                label="Read-cache budget"
                color={budgetColor}
                marker={data.readCacheBudget}
                curve={curve}
                missing="no read-cache budget reported in the hour before the window's end"
              />
              <MarkerLine
                label="Spare memory"
                color={spareColor}
                marker={data.spareMemory}
                curve={curve}
                missing="no memory sample in the window"
              />
            </ul>
          </>
        )}
      </CardContent>
    </Card>
  );
}
