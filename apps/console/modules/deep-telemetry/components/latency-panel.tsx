"use client";
import { formatNumber } from "@/lib/format";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { UPlotChart } from "@/modules/metrics/components/uplot-chart";
import { describeLatencyBasis } from "../lib/latency-basis";
import type { DeepTelemetry, UntimedIos } from "../types/deep-telemetry";
import { Panel } from "./panel";
import { whyEmpty } from "./why-empty";

const colours = { p50: "#16a34a", p95: "#ea580c", p99: "#dc2626" };

/** Untimed I/Os of one row: the count and its share of completions, or "not measured" (never 0). */
function untimedCell(untimed: UntimedIos): { text: string; title: string } {
  if (untimed.status === "not-measured") return { text: "not measured", title: untimed.reason };
  const share = untimed.sharePercent === null ? "" : ` (${formatNumber(untimed.sharePercent)} %)`;
  const uncounted =
    untimed.uncountedTimedOperations > 0 ? `; not counted for ${untimed.uncountedTimedOperations.toLocaleString()} of the timed I/Os` : "";
  return {
    text: `${untimed.operations.toLocaleString()}${share}`,
    title: `completed without a latency sample${share ? ", share of completions" : ""}${uncounted}`,
  };
}

/** p50 / p95 / p99 per device and operation, from merged log2 buckets: each value is a bucket edge. */
export function LatencyPanel({ deep }: { deep: DeepTelemetry }) {
  const empty =
    deep.latency.length === 0 ? whyEmpty(deep.capabilities, "ebpf.block_latency", "No I/O completed on any device in this range.") : null;
  return (
    <Panel
      testId="panel-latency-percentiles"
      title="Latency percentiles"
      description="From the kernel's per-I/O histogram (issue to completion) in power-of-two buckets: a percentile is known to its bucket, so “≤ 2.048 ms” means between 1.024 and 2.048 ms. Ranges merge bucket counts; percentiles are never averaged. Untimed I/Os: completions the disk counted that no histogram holds (spindle.disk.io.untimed), so the percentiles leave them out."
      empty={empty}
    >
      <p className="mb-3 text-sm text-muted-foreground" data-testid="latency-basis">
        {describeLatencyBasis(deep.latencyBasis.timedOperations, deep.latencyBasis.untimed)}
      </p>
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>Device</TableHead>
            <TableHead>Operation</TableHead>
            <TableHead className="text-right">Timed I/Os</TableHead>
            <TableHead className="text-right">Untimed I/Os</TableHead>
            <TableHead className="text-right">Average</TableHead>
            <TableHead className="text-right">p50</TableHead>
            <TableHead className="text-right">p95</TableHead>
            <TableHead className="text-right">p99</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {deep.latency.map((series) => (
            <TableRow
              key={`${series.device}-${series.operation}`}
              data-testid="latency-row"
              data-device={series.device}
              data-operation={series.operation}
            >
              <TableCell className="font-mono">{series.device}</TableCell>
              <TableCell>{series.operation}</TableCell>
              <TableCell className="text-right tabular-nums">{series.summary.operations.toLocaleString()}</TableCell>
              <TableCell className="text-right tabular-nums" data-testid="latency-untimed" title={untimedCell(series.untimed).title}>
                {untimedCell(series.untimed).text}
              </TableCell>
              <TableCell className="text-right tabular-nums">
                {series.summary.averageMs === null ? "—" : `${formatNumber(series.summary.averageMs)} ms`}
              </TableCell>
              <TableCell className="text-right tabular-nums">{series.summary.p50}</TableCell>
              <TableCell className="text-right tabular-nums">{series.summary.p95}</TableCell>
              <TableCell className="text-right tabular-nums">{series.summary.p99}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <div className="mt-4 grid grid-cols-1 gap-4 lg:grid-cols-2">
        {deep.latency
          .filter((series) => series.time.length > 0)
          .map((series) => (
            <UPlotChart
              key={`${series.device}-${series.operation}`}
              title={`/dev/${series.device} ${series.operation}: upper bucket edge`}
              unit="ms"
              time={series.time}
              format={formatNumber}
              testId={{ chart: `latency-percentiles-${series.operation}`, device: series.device }}
              series={[
                { label: "p50 ≤", color: colours.p50, values: series.p50Ms },
                { label: "p95 ≤", color: colours.p95, values: series.p95Ms },
                { label: "p99 ≤", color: colours.p99, values: series.p99Ms },
              ]}
            />
          ))}
      </div>
    </Panel>
  );
}
