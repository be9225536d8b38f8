// CSV exports of the savings ledger and the memory-vs-storage read series (lib/csv.ts). A figure
// that is not measured is an empty value with status "not measured" and the reason, never a 0.
// Each ledger line says its kind (caused, lower-bound, description, cost, counter) and, for a
// caused figure, its 95 % interval; the columns added over time come last, so older readers of
// the file keep their positions.
import { describeMeasured, type LedgerLine } from "@spindle/domain";
import { csvDocument, type CsvValue } from "@/lib/csv";
import type { FleetGains, ServerGains } from "../types/gains";

/** 12 significant digits: what the measurements carry, without a float's last-digit noise. */
function cell(value: CsvValue): CsvValue {
  return typeof value === "number" && Number.isFinite(value) ? Number(value.toPrecision(12)) : value;
}

/** Quoting and formula defusing are the shared writer's (lib/csv.ts). */
function csv(rows: readonly (readonly CsvValue[])[]): string {
  return csvDocument(rows.map((row) => row.map(cell)));
}

const ledgerHeader = [
  "scope",
  "server",
  "feature",
  "line",
  "unit",
  "value",
  "status",
  "basis",
  "from",
  "to",
  "kind",
  "interval_low",
  "interval_high",
  "confidence",
  "note",
];

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
    line.kind,
    line.interval?.low ?? null,
    line.interval?.high ?? null,
    line.interval?.confidence ?? null,
    line.note ?? null,
  ]);
}

export function serverLedgerCsv(gains: ServerGains): string {
  return csv([ledgerHeader, ...ledgerRows("server", gains.hostname, gains.ledger, gains.range.from, gains.range.to)]);
}

/** The fleet's lines first, then every server's. */
export function fleetLedgerCsv(gains: FleetGains): string {
  const { from, to } = gains.range;
  return csv([
    ledgerHeader,
    ...ledgerRows("fleet", "", gains.ledger, from, to),
    ...gains.servers.flatMap((server) => ledgerRows("server", server.hostname, server.ledger, from, to)),
  ]);
}

export function readSeriesCsv(gains: ServerGains): string {
  const { time, memoryBytesPerSecond, storageBytesPerSecond } = gains.series;
  return csv([
    ["time", "server", "memory_read_bytes_per_second", "storage_read_bytes_per_second"],
    ...time.map((t, i) => [
      new Date(t * 1000).toISOString(),
      gains.hostname,
      memoryBytesPerSecond[i] ?? null,
      storageBytesPerSecond[i] ?? null,
    ]),
  ]);
}
