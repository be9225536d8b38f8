"use client";
import { formatBytes } from "@/lib/format";
import type { MemorySeries } from "../types/metrics";
import { palette } from "./chart-palette";
import { UPlotChart } from "./uplot-chart";

export function MemoryChart({ memory }: { memory: MemorySeries }) {
  return (
    <section className="grid gap-3" aria-labelledby="memory-heading">
      <h2 id="memory-heading" className="text-base font-semibold">
        Memory
      </h2>
      <UPlotChart
        title="Memory"
        unit=""
        time={memory.time}
        format={formatBytes}
        height={220}
        testId={{ chart: "memory" }}
        series={[
          { label: "Total", color: palette.total, values: memory.totalBytes },
          { label: "Available", color: palette.available, values: memory.availableBytes },
          { label: "Page cache", color: palette.cached, values: memory.cachedBytes },
          { label: "Dirty", color: palette.dirty, values: memory.dirtyBytes },
        ]}
      />
    </section>
  );
}
