// The report page: the shape of the seed reports, made from the agent's measurements only.
import { Download } from "lucide-react";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatMs, formatNumber, formatPercent } from "../lib/format";
import { meanChange, saturationPoints, stepRows } from "../lib/report-view";
import type { BenchReport, ReadPlacement } from "../types/bench";
import { PrintButton } from "./print-button";
import { StepCharts } from "./step-charts";

interface Props {
  runId: string;
  hostname: string;
  report: BenchReport;
  shareUrl: string;
}

export function BenchReportView({ runId, hostname, report, shareUrl }: Props) {
  const rows = stepRows(report);
  const unit = report.throughput === "tps" ? "TPS" : "IOPS";
  const limitMs = report.latencyLimitSeconds * 1000;
  const saturation = saturationPoints(rows, limitMs);
  const throughputGain = meanChange(rows.map((row) => row.throughputChangePercent));
  const latencyChange = meanChange(rows.map((row) => row.latencyChangePercent));

  return (
    <div className="grid gap-6" data-testid="bench-report">
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Proof run on {hostname}: {report.profile}</h1>
          <p className="text-sm text-muted-foreground">{report.description}</p>
          <p className="mt-1 text-xs text-muted-foreground">
            {new Date(report.startedAt).toLocaleString()} – {new Date(report.endedAt).toLocaleString()} · passes {report.passOrder.join(", ")} ·
            {" "}{report.stepSeconds} s per step and pass · device {report.device.name || "unknown"} ({report.device.fileSystem || "unknown file system"}) at {report.device.path}
          </p>
          {!report.complete ? <p className="mt-1 text-sm text-destructive">Incomplete: {report.stopped ?? "the run stopped early"}</p> : null}
        </div>
        <div className="flex gap-2 print:hidden">
          <CopyButton value={shareUrl} label="Copy link" />
          <a href={`/api/bench-runs/${runId}/csv`} className={buttonVariants({ variant: "outline", size: "sm" })} data-testid="download-csv">
            <Download aria-hidden /> CSV
          </a>
          <PrintButton />
        </div>
      </header>

      <Card>
        <CardHeader>
          <CardTitle>With and without, per load step</CardTitle>
          <CardDescription>
            Means over each side&apos;s passes. On average over the steps: throughput {formatPercent(throughputGain)}, mean response time {formatPercent(latencyChange)}.
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
                <TableHead className="text-right">Change</TableHead>
                <TableHead className="text-right">Resp. ms without</TableHead>
                <TableHead className="text-right">Resp. ms with</TableHead>
                <TableHead className="text-right">Change</TableHead>
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
                  <TableCell className="text-right tabular-nums">{formatPercent(row.throughputChangePercent)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatNumber(row.latencyMsWithout)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatNumber(row.latencyMsWith)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatPercent(row.latencyChangePercent)}</TableCell>
                  <TableCell className="text-right tabular-nums">{formatNumber(row.p99MsWithout)} / {formatNumber(row.p99MsWith)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>

      <section className="grid gap-3">
        <h2 className="text-lg font-semibold">Per step: throughput ({unit}) and mean response time, without and with</h2>
        <StepCharts rows={rows} throughputUnit={unit} />
      </section>

      <Card data-testid="saturation">
        <CardHeader>
          <CardTitle>Saturation point</CardTitle>
          <CardDescription>The first load step whose mean response time crosses your limit of {formatMs(limitMs)}, per workload.</CardDescription>
        </CardHeader>
        <CardContent>
          <ul className="grid gap-1 text-sm">
            {saturation.map((point) => (
              <li key={`${point.workload}-${point.side}`}>
                <span className="font-medium">{point.workload}, {point.side} the features:</span>{" "}
                {point.step
                  ? `crossed at step ${point.step.index} (${point.step.label}) with ${formatMs(point.step.latencyMs)}`
                  : "never crossed the limit over the steps run"}
                {point.lastBelow ? `; highest load below it: ${point.lastBelow.label}, ${formatNumber(point.lastBelow.throughput)} ${unit}` : "; no step stayed below it"}
              </li>
            ))}
          </ul>
        </CardContent>
      </Card>

      <Card data-testid="read-placement">
        <CardHeader>
          <CardTitle>Where the reads went</CardTitle>
          <CardDescription>Reads served by storage and by memory, and the latency measured on each tier.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          <Placement title="Without the features" placement={report.reads.off} />
          <Placement title="With the features" placement={report.reads.on} />
        </CardContent>
      </Card>

      {report.writePath ? (
        <Card>
          <CardHeader>
            <CardTitle>Write path: log file fragments</CardTitle>
            <CardDescription>{report.writePath.basis}</CardDescription>
          </CardHeader>
          <CardContent className="text-sm">
            Extents without: {report.writePath.extentsOff?.join(", ") ?? "not measured"} · with: {report.writePath.extentsOn?.join(", ") ?? "not measured"} ·
            fragments prevented: {formatPercent(report.writePath.fragmentsPreventedPercent)}
          </CardContent>
        </Card>
      ) : null}

      {report.notes.length > 0 ? (
        <ul className="list-disc pl-5 text-sm text-muted-foreground">{report.notes.map((note) => <li key={note}>{note}</li>)}</ul>
      ) : null}
    </div>
  );
}

function Placement({ title, placement }: { title: string; placement: ReadPlacement | null }) {
  if (!placement) return <div className="text-sm"><p className="font-medium">{title}</p><p className="text-muted-foreground">not measured</p></div>;
  const memoryPercent = placement.storageReadPercent === null ? null : 100 - placement.storageReadPercent;
  return (
    <div className="grid gap-1 text-sm" data-testid="placement">
      <p className="font-medium">{title}</p>
      {placement.measured ? (
        <>
          <p>Storage: {formatNumber(placement.storageReads)} reads ({formatNumber(placement.storageReadPercent)} %), mean {formatMs(placement.storageLatencySeconds === null ? null : placement.storageLatencySeconds * 1000)}</p>
          <p>Memory: {formatNumber(placement.memoryReads)} reads ({formatNumber(memoryPercent)} %), mean {formatMs(placement.memoryLatencySeconds === null ? null : placement.memoryLatencySeconds * 1000)}</p>
        </>
      ) : (
        <p>not measured</p>
      )}
      <p className="text-xs text-muted-foreground">Basis: {placement.basis.replace(/\.?$/, ".")}{placement.latencySource ? ` Latency: ${placement.latencySource}.` : ""}</p>
    </div>
  );
}
