import { describeMeasured, type LedgerLine } from "@spindle/domain";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatInUnit } from "../lib/format-gains";

const featureNames = { "read-cache": "Read cache", "write-optimisation": "Write optimisation" } as const;

/** The savings ledger: one line per effect, its measured value and its basis. */
export function LedgerTable({ lines, testId = "gains-ledger" }: { lines: readonly LedgerLine[]; testId?: string }) {
  return (
    <Table data-testid={testId}>
      <TableHeader>
        <TableRow>
          <TableHead>Feature</TableHead>
          <TableHead>Effect</TableHead>
          <TableHead className="text-right">Measured</TableHead>
          <TableHead>Basis</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {lines.map((line) => (
          <TableRow key={line.key} data-testid={`ledger-${line.key}`} data-status={line.effect.status}>
            <TableCell className="whitespace-nowrap text-muted-foreground">{featureNames[line.feature]}</TableCell>
            <TableCell className="whitespace-nowrap font-medium">{line.label}</TableCell>
            <TableCell className="whitespace-nowrap text-right tabular-nums" data-testid={`ledger-${line.key}-value`}>
              {line.effect.status === "measured" ? formatInUnit(line.effect.value, line.unit) : <span className="text-muted-foreground">not measured</span>}
            </TableCell>
            <TableCell className="text-xs text-muted-foreground">
              {describeMeasured(line.effect)}
              {line.effect.status === "measured" && line.notMeasuredOn && line.notMeasuredOn.length > 0 ? (
                <div>not measured on {line.notMeasuredOn.map((entry) => entry.server).join(", ")}</div>
              ) : null}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
