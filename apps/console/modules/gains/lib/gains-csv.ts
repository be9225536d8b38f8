// CSV exports of the savings ledger and the memory-vs-storage read series (lib/csv.ts). A figure
// that is not measured is an empty value with status "not measured" and the reason, never a 0.
import { describeMeasured, type LedgerLine } from "@spindle/domain";
import { csvDocument } from "@/lib/csv";
import type { FleetGains, ServerGains } from "../types/gains";

const ledgerHeader = ["scope", "server", "feature", "line", "unit", "value", "status", "basis", "from", "to"];

function ledgerRows(scope: "server" | "fleet", server: string, lines: readonly LedgerLine[], from: string, to: string) {
  return lines.map((line) => [
    scope,
    server,
    line.feature,
    line.label,
    line.unit,
    line.effect.status === "measured" ? line.effect.value : null,
    line.effect.status === "measured" ? "measured" : "not measured",
    describeMeasured(line.effect).replace(/^(not )?measured: /, ""),
    from,
    to,
  ]);
}

export function serverLedgerCsv(gains: ServerGains): string {
  return csvDocument([ledgerHeader, ...ledgerRows("server", gains.hostname, gains.ledger, gains.range.from, gains.range.to)]);
}

/** The fleet's lines first, then every server's. */
export function fleetLedgerCsv(gains: FleetGains): string {
  const { from, to } = gains.range;
  return csvDocument([
    ledgerHeader,
    ...ledgerRows("fleet", "", gains.ledger, from, to),
    ...gains.servers.flatMap((server) => ledgerRows("server", server.hostname, server.ledger, from, to)),
  ]);
}

export function readSeriesCsv(gains: ServerGains): string {
  const { time, memoryBytesPerSecond, storageBytesPerSecond } = gains.series;
  return csvDocument([
    ["time", "server", "memory_read_bytes_per_second", "storage_read_bytes_per_second"],
    ...time.map((t, i) => [new Date(t * 1000).toISOString(), gains.hostname, memoryBytesPerSecond[i] ?? null, storageBytesPerSecond[i] ?? null]),
  ]);
}
