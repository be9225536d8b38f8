import { describeMeasured, type LedgerLine } from "@spindle/domain";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatInterval, lineKindHints, lineKindLabels } from "../lib/format-caused";
import { formatInUnit } from "../lib/format-gains";

const featureNames = { "read-cache": "Read cache", "write-optimisation": "Write optimisation" } as const;

/** The savings ledger: one line per effect, what kind of figure it is, its value (and interval) and its basis. */
export function LedgerTable({ lines, testId = "gains-ledger" }: { lines: readonly LedgerLine[]; testId?: string }) {
  return (
    <Table data-testid={testId}>
      <TableHeader>
        <TableRow>
          <TableHead>Feature</TableHead>
          <TableHead>Effect</TableHead>
          <TableHead>Kind</TableHead>
          <TableHead className="text-right">Measured</TableHead>
          <TableHead>Basis</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {lines.map((line) => (
          <TableRow key={line.key} data-testid={`ledger-${line.key}`} data-status={line.effect.status} data-kind={line.kind}>
            <TableCell className="whitespace-nowrap text-muted-foreground">{featureNames[line.feature]}</TableCell>
            <TableCell className="whitespace-nowrap font-medium">{line.label}</TableCell>
            <TableCell title={lineKindHints[line.kind]}>
              <Badge variant={line.kind === "caused" ? "success" : "secondary"} className="whitespace-nowrap">
                {lineKindLabels[line.kind]}
              </Badge>
            </TableCell>
            <TableCell className="whitespace-nowrap text-right tabular-nums" data-testid={`ledger-${line.key}-value`}>
              {line.effect.status === "measured" ? (
                formatInUnit(line.effect.value, line.unit)
              ) : (
                <span className="text-muted-foreground">not measured</span>
              )}
              {line.effect.status === "measured" && line.interval ? (
                <div className="text-xs text-muted-foreground" data-testid={`ledger-${line.key}-interval`}>
                  {formatInterval(line.interval, line.unit)}
                </div>
              ) : null}
            </TableCell>
            <TableCell className="text-xs text-muted-foreground">
              {describeMeasured(line.effect)}
              {line.note ? <div>{line.note}</div> : null}
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
