import type { ServerGainsSummary } from "../types/gains";
import { formatBytes, formatNumber } from "@/lib/format";
import { formatDuration, formatPercent } from "../lib/format-gains";
import { MeasuredFigure } from "./measured-figure";

/** The read cache's headline figures: where reads were served from, both latencies, time saved. */
export function ReadsSummary({ gains }: { gains: ServerGainsSummary }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <div>
        <div className="text-xs font-medium uppercase tracking-wide text-muted-foreground">Reads from memory</div>
        <MeasuredFigure
          testId="gains-hits"
          figure={gains.reads}
          format={(reads) => `${formatPercent(reads.memoryShare)} · ${formatBytes(reads.memoryBytes)} (${formatNumber(reads.memoryOperations)} pages)`}
        />
      </div>
      <div>
        <div className="text-xs font-medium uppercase tracking-wide text-muted-foreground">Storage read latency</div>
        <MeasuredFigure testId="gains-storage-latency" figure={gains.storageReadLatencySeconds} format={formatDuration} />
      </div>
      <div>
        <div className="text-xs font-medium uppercase tracking-wide text-muted-foreground">Memory read latency</div>
        <MeasuredFigure testId="gains-memory-latency" figure={gains.memoryReadLatencySeconds} format={formatDuration} />
      </div>
      <div>
        <div className="text-xs font-medium uppercase tracking-wide text-muted-foreground">Storage time saved</div>
        <MeasuredFigure
          testId="gains-time-saved"
          figure={gains.timeSaved}
          format={(saved) => `${formatDuration(saved.seconds)} (${formatNumber(saved.storageIosSaved)} storage reads)`}
        />
      </div>
    </div>
  );
}
