import type { CausedReads } from "@spindle/domain";
import { Badge } from "@/components/ui/badge";
import { formatBytes, formatNumber } from "@/lib/format";
import { formatInterval } from "../lib/format-caused";
import { formatDuration, formatPercent } from "../lib/format-gains";
import type { ServerGainsSummary } from "../types/gains";
import { MeasuredFigure } from "./measured-figure";

/**
 * What the interval rests on: the agent's hash buckets of page groups show how the control draw
 * moves the comparison; an agent that sends no buckets leaves the block bootstrap over time,
 * which cannot, and the reader is told.
 */
function intervalBasis(interval: CausedReads["interval"]): string {
  return interval.method === "hash-buckets"
    ? ` (from ${interval.buckets} hash buckets of page groups)`
    : "; the interval omits the variance of the control group's draw of page groups: update the agent so it sends counts per hash bucket";
}

function Heading({ children, kind }: { children: string; kind: "caused" | "description" | "lower bound" | null }) {
  return (
    <div className="flex items-center gap-2 text-xs font-medium uppercase tracking-wide text-muted-foreground">
      {children}
      {kind ? (
        <Badge variant={kind === "caused" ? "success" : "secondary"} className="whitespace-nowrap normal-case tracking-normal">
          {kind}
        </Badge>
      ) : null}
    </div>
  );
}

/**
 * The read cache's headline figures. Reads served from memory describe what happened (the kernel
 * serves most of them anyway); "saved" is only ever what the cache caused, measured against its
 * control group, with its interval, or "not measured" and why; beside it the direct lower bound.
 */
export function ReadsSummary({ gains }: { gains: ServerGainsSummary }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
      <div>
        <Heading kind="description">Reads from memory (managed files)</Heading>
        <MeasuredFigure
          testId="gains-hits"
          figure={gains.reads}
          format={(reads) =>
            `${formatPercent(reads.memoryShare)} · ${formatBytes(reads.memoryBytes)} (${formatNumber(reads.memoryOperations)} pages)`
          }
          detail={() => "what the page cache served, not a saving"}
        />
      </div>
      <div>
        <Heading kind="caused">Storage reads saved</Heading>
        <MeasuredFigure
          testId="gains-caused-reads"
          figure={gains.causedReads}
          format={(reads) => `${formatNumber(reads.savedIos)} reads`}
          detail={(reads) =>
            `${formatInterval(reads.interval, "{io}")}; control missed ${formatPercent(reads.estimate.controlMissRatio)}, ` +
            `managed ${formatPercent(reads.estimate.managedMissRatio)}${reads.capped ? "; capped at what the devices could have served" : ""}` +
            intervalBasis(reads.estimate.interval)
          }
        />
      </div>
      <div>
        <Heading kind="caused">Storage time saved</Heading>
        <MeasuredFigure
          testId="gains-time-saved"
          figure={gains.causedTime}
          format={(time) => formatDuration(time.seconds)}
          detail={(time) => formatInterval(time.interval, "s")}
        />
      </div>
      <div>
        <Heading kind="lower bound">Reads served from pages the cache brought in</Heading>
        <MeasuredFigure
          testId="gains-own-page-hits"
          figure={gains.ownPageHits}
          format={(reads) => `${formatNumber(reads)} reads`}
          detail={() => "counted page by page: the cache saved at least these"}
        />
      </div>
      <div>
        <Heading kind={null}>Storage read latency</Heading>
        <MeasuredFigure testId="gains-storage-latency" figure={gains.storageReadLatencySeconds} format={formatDuration} />
      </div>
      <div>
        <Heading kind={null}>Memory read latency</Heading>
        <MeasuredFigure testId="gains-memory-latency" figure={gains.memoryReadLatencySeconds} format={formatDuration} />
      </div>
    </div>
  );
}
