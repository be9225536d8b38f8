"use client";
import { formatNumber } from "@/lib/format";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import type { DeepTelemetry } from "../types/deep-telemetry";
import { Panel } from "./panel";
import { whyEmpty } from "./why-empty";

/** System-wide page-cache hit ratio: 1 − misses / accesses, from summed counters. */
export function CacheHitPanel({ deep }: { deep: DeepTelemetry }) {
  const { cacheHit } = deep;
  const empty = cacheHit.time.length === 0 ? whyEmpty(deep.capabilities, "ebpf.page_cache", "Nothing was read through the page cache in this range.") : null;
  return (
    <Panel
      testId="panel-cache-hit-ratio"
      title="Page-cache hit ratio"
      description={
        cacheHit.overallPercent === null
          ? "Reads and file-mapping faults served from memory, system-wide."
          : `Reads and file-mapping faults served from memory, system-wide: ${formatNumber(cacheHit.overallPercent)} % over the range.`
      }
      empty={empty}
    >
      <UPlotChart
        title="Hit ratio"
        unit="%"
        yRange={[0, 100]}
        time={cacheHit.time}
        format={formatNumber}
        testId={{ chart: "cache-hit-ratio" }}
        series={[{ label: "Hit ratio", color: "#0891b2", values: cacheHit.hitRatioPercent }]}
      />
    </Panel>
  );
}
