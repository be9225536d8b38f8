// CSV exports of the savings ledger and the memory-vs-storage read series (RFC 4180). A figure
// that is not measured is an empty value with status "not measured" and the reason, never a 0.
// Each ledger line says its kind (caused, lower-bound, description, cost, counter) and, for a
// caused figure, its 95 % interval; the columns added over time come last, so older readers of
// the file keep their positions.
import { describeMeasured, type LedgerLine } from "@spindle/domain";
import type { FleetGains, ServerGains } from "../types/gains";

/** Quotes a field when it needs it, and defuses text a spreadsheet would run as a formula. */
export function csvField(value: string | number | null): string {
  if (value === null) return "";
  // 12 significant digits: what the measurements carry, without a float's last-digit noise.
  if (typeof value === "number") return Number.isFinite(value) ? String(Number(value.toPrecision(12))) : "";
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csv(rows: readonly (readonly (string | number | null)[])[]): string {
  return rows.map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}

const ledgerHeader = ["scope", "server", "feature", "line", "unit", "value", "status", "basis", "from", "to",
  "kind", "interval_low", "interval_high", "confidence", "note"];

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
    ...time.map((t, i) => [new Date(t * 1000).toISOString(), gains.hostname, memoryBytesPerSecond[i] ?? null, storageBytesPerSecond[i] ?? null]),
  ]);
}
