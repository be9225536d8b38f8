import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatNumber } from "../lib/format";
import type { ProofRunReport } from "../types/proof-run";

/** Every pass as measured, one row per pass and the steps across: the values every change rests on. */
export function PassTable({ report, runId }: { report: ProofRunReport; runId: string }) {
  const unit = report.throughput === "tps" ? "TPS" : "IOPS";
  const passes = [...new Set(report.steps.flatMap((step) => (step.passes ?? []).map((p) => p.pass)))].sort((a, b) => a - b);
  if (passes.length === 0) return null;
  const at = (stepIndex: number, pass: number) => report.steps[stepIndex]?.passes?.find((p) => p.pass === pass);
  return (
    <Card data-testid="pass-table">
      <CardHeader>
        <CardTitle>Every pass</CardTitle>
        <CardDescription>
          {unit} and mean response time (ms) of each step in each pass, in the order they ran. The warm-up pass is kept here and never
          compared.{" "}
          <a className="underline print:hidden" href={`/api/proof-runs/${runId}/csv?what=passes`}>
            CSV of every pass
          </a>
        </CardDescription>
      </CardHeader>
      <CardContent>
        <Table className="text-xs">
          <TableHeader>
            <TableRow>
              <TableHead>Pass</TableHead>
              <TableHead>Features</TableHead>
              {report.steps.map((step) => (
                <TableHead key={step.index} className="text-right">
                  Step {step.index}: {unit} / ms
                </TableHead>
              ))}
            </TableRow>
          </TableHeader>
          <TableBody>
            {passes.map((pass) => {
              const first = report.steps.map((_, i) => at(i, pass)).find((p) => p !== undefined);
              return (
                <TableRow
                  key={pass}
                  data-testid="pass-row"
                  data-warm-up={first?.warmUp ? "true" : "false"}
                  className={first?.warmUp ? "text-muted-foreground" : undefined}
                >
                  <TableCell>{pass}</TableCell>
                  <TableCell>
                    {first?.side ?? ""}
                    {first?.warmUp ? " (warm-up, not compared)" : ""}
                  </TableCell>
                  {report.steps.map((step, i) => {
                    const value = at(i, pass);
                    return (
                      <TableCell key={step.index} className="text-right tabular-nums">
                        {value ? `${formatNumber(value.throughput)} / ${formatNumber(value.latencyMeanSeconds * 1000)}` : "not measured"}
                      </TableCell>
                    );
                  })}
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </CardContent>
    </Card>
  );
}
