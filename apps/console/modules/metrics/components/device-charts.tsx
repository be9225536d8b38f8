"use client";
import { formatNumber } from "@/lib/format";
import type { DeviceSeries } from "../types/metrics";
import { palette } from "./chart-palette";
import { UPlotChart } from "./uplot-chart";

/** The five disk charts of one device: IOPS, throughput, latency, queue depth, utilisation. */
export function DeviceCharts({ series }: { series: DeviceSeries }) {
  const common = { time: series.time, format: formatNumber };
  const id = (chart: string) => ({ chart, device: series.device });
  return (
    <section className="grid gap-3" aria-labelledby={`device-${series.device}`} data-testid="device-charts" data-device={series.device}>
      <h2 id={`device-${series.device}`} className="font-mono text-base font-semibold">
        /dev/{series.device}
      </h2>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2 2xl:grid-cols-3">
        <UPlotChart
          {...common}
          title="IOPS"
          unit="ops/s"
          testId={id("iops")}
          series={[
            { label: "Read", color: palette.read, values: series.readIops },
            { label: "Write", color: palette.write, values: series.writeIops },
          ]}
        />
        <UPlotChart
          {...common}
          title="Throughput"
          unit="MB/s"
          testId={id("throughput")}
          series={[
            { label: "Read", color: palette.read, values: series.readMegabytesPerSecond },
            { label: "Write", color: palette.write, values: series.writeMegabytesPerSecond },
          ]}
        />
        <UPlotChart
          {...common}
          title="Average latency"
          unit="ms"
          testId={id("latency")}
          series={[
            { label: "Read", color: palette.read, values: series.readLatencyMs },
            { label: "Write", color: palette.write, values: series.writeLatencyMs },
          ]}
        />
        <UPlotChart
          {...common}
          title="Average queue depth"
          unit="I/Os"
          testId={id("queue-depth")}
          series={[{ label: "Queue depth", color: palette.single, values: series.queueDepth }]}
        />
        <UPlotChart
          {...common}
          title="Utilisation"
          unit="%"
          yRange={[0, 100]}
          testId={id("utilisation")}
          series={[{ label: "Utilisation", color: palette.single, values: series.utilisationPercent }]}
        />
      </div>
    </section>
  );
}
