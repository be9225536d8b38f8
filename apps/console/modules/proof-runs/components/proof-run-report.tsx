// The report page: the shape of the seed reports, made from the agent's measurements only. A
// change is stated with its interval; one whose interval includes 0 reads "no measurable
// difference"; an incomplete run states none and shows the passes it finished.
import { Download } from "lucide-react";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatMs, formatNumber } from "../lib/format";
import { differenceText, overallChange, saturationPoints, stepRows } from "../lib/report-view";
import type { ProofRunReport } from "../types/proof-run";
import { ChangeText } from "./change-text";
import { IntervalPlot } from "./interval-plot";
import { PassTable } from "./pass-table";
import { PrintButton } from "./print-button";
import { ReadPlacementCard } from "./read-placement";
import { RunBasis } from "./run-basis";
import { StepCharts } from "./step-charts";
import { WritePathCard } from "./write-path";

interface Props {
  runId: string;
  hostname: string;
  report: ProofRunReport;
  shareUrl: string;
}

export function ProofRunReportView({ runId, hostname, report, shareUrl }: Props) {
  const rows = stepRows(report);
  const unit = report.throughput === "tps" ? "TPS" : "IOPS";
  const limitMs = report.latencyLimitSeconds * 1000;
  const saturation = saturationPoints(rows, limitMs);
  const overall = overallChange(report);

  return (
    <div className="grid gap-6" data-testid="proof-run-report" data-complete={report.complete ? "true" : "false"}>
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">
            Proof run on {hostname}: {report.profile}
          </h1>
          <p className="text-sm text-muted-foreground">{report.description}</p>
          <p className="mt-1 text-xs text-muted-foreground">
            {new Date(report.startedAt).toLocaleString()} – {new Date(report.endedAt).toLocaleString()} · {report.passOrder.length} passes ·{" "}
            {report.stepSeconds} s per step and pass · device {report.device.name || "unknown"} (
            {report.device.fileSystem || "unknown file system"}) at {report.device.path}
          </p>
          {!report.complete ? (
            <p className="mt-1 text-sm text-destructive" data-testid="incomplete">
              Incomplete: {report.stopped ?? "the run stopped early"}. No change is stated; the passes it finished are below.
            </p>
          ) : null}
        </div>
        <div className="flex gap-2 print:hidden">
          <CopyButton value={shareUrl} label="Copy link" />
          <a
            href={`/api/proof-runs/${runId}/csv`}
            className={buttonVariants({ variant: "outline", size: "sm" })}
            data-testid="download-csv"
          >
            <Download aria-hidden /> CSV
          </a>
          <PrintButton />
        </div>
      </header>

      {report.ab ? <RunBasis report={report} /> : null}

      <Card>
        <CardHeader>
          <CardTitle>With and without, per load step</CardTitle>
          <CardDescription data-testid="overall">
            Means over each side&apos;s compared passes. Across all steps (geometric mean): throughput {differenceText(overall.throughput)},
            mean response time {differenceText(overall.latencyMean)}.
          </CardDescription>
        </CardHeader>
        <CardContent className="overflow-x-auto">
          <Table data-testid="step-table">
            <TableHeader>
              <TableRow>
                <TableHead>Step</TableHead>
                <TableHead>Load</TableHead>
                <TableHead className="text-right">{unit} without</TableHead>
                <TableHead className="text-right">{unit} with</TableHead>
                <TableHead className="text-right">Change (interval)</TableHead>
                <TableHead className="text-right">Resp. ms without</TableHead>
                <TableHead className="text-right">Resp. ms with</TableHead>
                <TableHead className="text-right">Change (interval)</TableHead>
                <TableHead className="text-right">p99 ms without / with</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {rows.map((row) => (
                <TableRow key={row.index} data-testid="step-row">
                  <TableCell>{row.index}</TableCell>
                  <TableCell>{row.label}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatNumber(row.throughputWithout)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatNumber(row.throughputWith)}</TableCell>
                  <TableCell className="text-right tabular-nums">
                    <ChangeText difference={row.throughputChange} />
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{formatNumber(row.latencyMsWithout)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatNumber(row.latencyMsWith)}</TableCell>
                  <TableCell className="text-right tabular-nums">
                    <ChangeText difference={row.latencyChange} />
                  </TableCell>
                  <TableCell className="text-right tabular-nums">
                    {formatNumber(row.p99MsWithout)} / {formatNumber(row.p99MsWith)}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>

      {report.ab ? (
        <section className="grid gap-3">
          <h2 className="text-lg font-semibold">Changes with their intervals</h2>
          <div className="grid gap-4 lg:grid-cols-2 print:grid-cols-2">
            <IntervalPlot
              title={`Throughput (${unit})`}
              better="higher"
              rows={[
                ...rows.map((row) => ({ key: String(row.index), label: `Step ${row.index}`, difference: row.throughputChange })),
                { key: "overall", label: "All steps", difference: overall.throughput },
              ]}
            />
            <IntervalPlot
              title="Mean response time"
              better="lower"
              rows={[
                ...rows.map((row) => ({ key: String(row.index), label: `Step ${row.index}`, difference: row.latencyChange })),
                { key: "overall", label: "All steps", difference: overall.latencyMean },
              ]}
            />
          </div>
        </section>
      ) : null}

      <section className="grid gap-3">
        <h2 className="text-lg font-semibold">Per step: throughput ({unit}) and mean response time, without and with</h2>
        <StepCharts rows={rows} throughputUnit={unit} />
      </section>

      <Card data-testid="saturation">
        <CardHeader>
          <CardTitle>Saturation point</CardTitle>
          <CardDescription>
            The first load step whose mean response time crosses your limit of {formatMs(limitMs)}, per workload.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <ul className="grid gap-1 text-sm">
            {saturation.map((point) => (
              <li key={`${point.workload}-${point.side}`}>
                <span className="font-medium">
                  {point.workload}, {point.side} the features:
                </span>{" "}
                {point.step
                  ? `crossed at step ${point.step.index} (${point.step.label}) with ${formatMs(point.step.latencyMs)}`
                  : "never crossed the limit over the steps run"}
                {point.lastBelow
                  ? `; highest load below it: ${point.lastBelow.label}, ${formatNumber(point.lastBelow.throughput)} ${unit}`
                  : "; no step stayed below it"}
              </li>
            ))}
          </ul>
        </CardContent>
      </Card>

      <ReadPlacementCard report={report} />
      <WritePathCard report={report} />
      <PassTable report={report} runId={runId} />

      {report.notes.length > 0 ? (
        <ul className="list-disc pl-5 text-sm text-muted-foreground">
          {report.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
