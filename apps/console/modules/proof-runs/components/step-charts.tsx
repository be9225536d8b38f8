"use client";
import type { StepRow } from "../lib/report-view";
import { formatNumber } from "../lib/format";
import { StepChart } from "./step-chart";

const formatThroughput = (value: number) => formatNumber(value);

/** A with/without chart for every load step. */
export function StepCharts({ rows, throughputUnit }: { rows: StepRow[]; throughputUnit: string }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3 print:grid-cols-2">
      {rows.map((row) => (
        <StepChart key={row.index} row={row} throughputUnit={throughputUnit} formatThroughput={formatThroughput} />
      ))}
    </div>
  );
}
