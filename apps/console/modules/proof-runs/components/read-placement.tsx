import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatMs, formatNumber } from "../lib/format";
import { statedCausedReads } from "../lib/report-view";
import type { ProofRunReport, CausedReads, ReadPlacement } from "../types/proof-run";

/**
 * Where the reads went: first what the read cache caused (the change in storage reads between
 * the off and on passes, with its interval), then, labelled as a description, where each side's
 * reads were served from: the page cache serves many of them whether the features run or not.
 */
export function ReadPlacementCard({ report }: { report: ProofRunReport }) {
  const caused = statedCausedReads(report);
  return (
    <Card data-testid="read-placement">
      <CardHeader>
        <CardTitle>Where the reads went</CardTitle>
        <CardDescription>
          What the read cache caused, compared pass pair by pass pair; then where each side&apos;s reads were served from.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <Caused caused={caused} />
        <div className="grid gap-2" data-testid="read-description">
          <p className="text-sm font-medium">Reads served from memory and storage (a description, not a saving)</p>
          <div className="grid gap-4 sm:grid-cols-2">
            <Placement title="Without the features" placement={report.reads.off} />
            <Placement title="With the features" placement={report.reads.on} />
          </div>
        </div>
      </CardContent>
    </Card>
  );
}

function Caused({ caused }: { caused: CausedReads }) {
  const points = (v: number | null) =>
    v === null ? "not measured" : `${v > 0 ? "+" : v < 0 ? "−" : ""}${formatNumber(Math.abs(v))} points`;
  return (
    <div className="grid gap-1 rounded-lg border p-3 text-sm" data-testid="caused-reads" data-status={caused.status}>
      <p className="font-medium">Storage reads caused by the read cache</p>
      {caused.status === "measured" ? (
        <p>
          {caused.storageReadsSaved !== null && caused.storageReadsSaved >= 0 ? "Saved" : "Added"}{" "}
          {formatNumber(Math.abs(caused.storageReadsSaved ?? 0))} storage reads (95 % interval {formatNumber(caused.storageReadsSavedLow)}{" "}
          to {formatNumber(caused.storageReadsSavedHigh)} saved) of {formatNumber(caused.readsWith)} reads with the features.
        </p>
      ) : caused.status === "no-measurable-difference" ? (
        <p>
          No measurable difference: between {formatNumber(caused.storageReadsSavedLow)} and {formatNumber(caused.storageReadsSavedHigh)}{" "}
          storage reads saved of {formatNumber(caused.readsWith)} reads with the features (95 % interval).
        </p>
      ) : (
        <p>Not measured: {caused.reason}</p>
      )}
      {caused.status !== "not-measured" ? (
        <p className="text-muted-foreground">
          Share of reads that went to storage: {formatNumber(caused.storageSharePercentOff)} % without,{" "}
          {formatNumber(caused.storageSharePercentOn)} % with; change {points(caused.shareChangePoints)} (
          {points(caused.shareChangeLowPoints)} to {points(caused.shareChangeHighPoints)}), from {caused.pairs} pass pairs.
        </p>
      ) : null}
      {caused.basis ? <p className="text-xs text-muted-foreground">Basis: {caused.basis.replace(/\.?$/, ".")}</p> : null}
    </div>
  );
}

function Placement({ title, placement }: { title: string; placement: ReadPlacement | null }) {
  if (!placement)
    return (
      <div className="text-sm">
        <p className="font-medium">{title}</p>
        <p className="text-muted-foreground">not measured</p>
      </div>
    );
  const memoryPercent = placement.storageReadPercent === null ? null : 100 - placement.storageReadPercent;
  return (
    <div className="grid gap-1 text-sm" data-testid="placement">
      <p className="font-medium">{title}</p>
      {placement.measured ? (
        <>
          <p>
            Storage: {formatNumber(placement.storageReads)} reads ({formatNumber(placement.storageReadPercent)} %), mean{" "}
            {formatMs(placement.storageLatencySeconds === null ? null : placement.storageLatencySeconds * 1000)}
          </p>
          <p>
            Memory: {formatNumber(placement.memoryReads)} reads ({formatNumber(memoryPercent)} %), mean{" "}
            {formatMs(placement.memoryLatencySeconds === null ? null : placement.memoryLatencySeconds * 1000)}
          </p>
        </>
      ) : (
        <p>not measured</p>
      )}
      <p className="text-xs text-muted-foreground">
        Basis: {placement.basis.replace(/\.?$/, ".")}
        {placement.latencySource ? ` Latency: ${placement.latencySource}.` : ""}
      </p>
    </div>
  );
}
