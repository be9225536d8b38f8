"use client";
import { palette } from "@/modules/metrics/components/chart-palette";
import { ChartWindowContext, UPlotChart } from "@/modules/metrics/components/uplot-chart";
import { formatBytes } from "@/lib/format";
import type { GainsRangeView, ReadSeries } from "../types/gains";

/** Reads of the read cache's files served from memory (hits) vs from storage (misses), in bytes per second. */
export function ReadsChart({ series, range }: { series: ReadSeries; range: GainsRangeView }) {
  const window: [number, number] = [Date.parse(range.from) / 1000, Date.parse(range.to) / 1000];
  return (
    <ChartWindowContext.Provider value={window}>
      <UPlotChart
        title="Reads of managed files: memory vs storage"
        unit="/s"
        time={series.time}
        series={[
          { label: "from memory (hits)", color: palette.available, values: series.memoryBytesPerSecond },
          { label: "from storage (misses)", color: palette.read, values: series.storageBytesPerSecond },
        ]}
        format={formatBytes}
        testId={{ chart: "gains-reads" }}
      />
    </ChartWindowContext.Provider>
  );
}
