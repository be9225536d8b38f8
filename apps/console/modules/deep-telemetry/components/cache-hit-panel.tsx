"use client";
import { formatNumber } from "@/lib/format";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import type { DeepTelemetry } from "../types/deep-telemetry";
import { CacheTopFilesTable } from "./cache-top-files";
import { Panel } from "./panel";
import { whyEmpty } from "./why-empty";

/** System-wide page-cache hit ratio (1 − misses / accesses, from summed counters) and the files that use the cache most. */
export function CacheHitPanel({ deep }: { deep: DeepTelemetry }) {
  const { cacheHit, cacheTopFiles } = deep;
  const chartEmpty =
    cacheHit.time.length === 0
      ? whyEmpty(deep.capabilities, "ebpf.page_cache", "Nothing was read through the page cache in this range.")
      : null;
  const filesEmpty =
    cacheTopFiles.files.length === 0
      ? whyEmpty(
          deep.capabilities,
          "ebpf.page_cache",
          "No top files reported yet: the agent lists the most-read files of an interval once files are read through the page cache (agents older than this console report none).",
        )
      : null;
  return (
    <Panel
      testId="panel-cache-hit-ratio"
      title="Page-cache hit ratio"
      description={
        cacheHit.overallPercent === null
          ? "Reads and file-mapping faults served from memory, system-wide."
          : `Reads and file-mapping faults served from memory, system-wide: ${formatNumber(cacheHit.overallPercent)} % over the range.`
      }
      empty={chartEmpty !== null && filesEmpty !== null ? chartEmpty : null}
    >
      <div className="grid gap-6">
        {chartEmpty === null ? (
          <UPlotChart
            title="Hit ratio"
            unit="%"
            yRange={[0, 100]}
            time={cacheHit.time}
            format={formatNumber}
            testId={{ chart: "cache-hit-ratio" }}
            series={[{ label: "Hit ratio", color: "#0891b2", values: cacheHit.hitRatioPercent }]}
          />
        ) : (
          <p className="text-sm text-muted-foreground">{chartEmpty}</p>
        )}
        <CacheTopFilesTable topFiles={cacheTopFiles} empty={filesEmpty} />
      </div>
    </Panel>
  );
}
