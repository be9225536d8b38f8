"use client";
import { formatNumber } from "@/lib/format";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import type { DeepTelemetry } from "../types/deep-telemetry";
import { Panel } from "./panel";
import { whyEmpty } from "./why-empty";

const colours = ["#7c3aed", "#2563eb", "#0891b2", "#ea580c", "#16a34a", "#64748b"];

/** Bios the block layer split because they exceeded the device's limits, per second and device. */
export function SplitIoPanel({ deep }: { deep: DeepTelemetry }) {
  const empty =
    deep.splitIo.length === 0 ? whyEmpty(deep.capabilities, "ebpf.block_split", "No split I/O was measured in this range.") : null;
  const first = deep.splitIo[0];
  return (
    <Panel
      testId="panel-split-io"
      title="Split I/O per second"
      description="I/Os the kernel had to cut in pieces because they exceeded the device's limits (max_sectors_kb, segment limits): each split is an extra device request."
      empty={empty}
    >
      {first ? (
        <>
          <p className="mb-3 text-sm text-muted-foreground">
            Average over the range:{" "}
            {deep.splitIo.map((s) => `${s.device} ${s.averagePerSecond === null ? "—" : formatNumber(s.averagePerSecond)}/s`).join(" · ")}
          </p>
          {/* Devices share the time axis only when they have the same points; one chart per device keeps gaps honest. */}
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            {deep.splitIo.map((series, i) => (
              <UPlotChart
                key={series.device}
                title={`/dev/${series.device}`}
                unit="splits/s"
                time={series.time}
                format={formatNumber}
                testId={{ chart: "split-io", device: series.device }}
                series={[{ label: "Split I/Os", color: colours[i % colours.length]!, values: series.splitIosPerSecond }]}
              />
            ))}
          </div>
        </>
      ) : null}
    </Panel>
  );
}
