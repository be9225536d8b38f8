// A family panel's charts and totals from the families' series: each line per second over its
// family's interval_seconds, aligned on the union of the points' times, and each line's total
// over the range. A point or a range with nothing measured stays null ("not measured"), never 0.
import type { FamilyPanel } from "../panels";
import type { FamilySeries } from "../types/family-series";

export interface PanelChart {
  /** The key's values joined ("sda", "sda read"), "" for a family without keys. */
  key: string;
  time: number[];
  lines: { label: string; color: string; values: (number | null)[] }[];
}

export interface PanelData {
  charts: PanelChart[];
  totals: { label: string; total: number | null }[];
  difference: { label: string; value: number | null } | null;
  /** True when no line has a measured point in the range. */
  empty: boolean;
}

const keyOf = (key: Record<string, string>) => Object.values(key).join(" ");

export function buildFamilyPanel(panel: FamilyPanel, series: readonly FamilySeries[]): PanelData {
  const byTable = new Map(series.map((s) => [s.table, s]));
  const keys = new Set<string>();
  for (const line of panel.lines) for (const s of byTable.get(line.family)?.series ?? []) keys.add(keyOf(s.key));
  const charts: PanelChart[] = [];
  for (const key of [...keys].sort()) {
    const points = panel.lines.map((line) => {
      const found = byTable.get(line.family)?.series.find((s) => keyOf(s.key) === key);
      const rates = new Map<number, number | null>();
      found?.time.forEach((t, i) => {
        const value = found.values[line.column]?.[i] ?? null;
        const seconds = found.values.interval_seconds?.[i] ?? null;
        rates.set(t, value === null || !seconds ? null : value / seconds);
      });
      return rates;
    });
    const time = [...new Set(points.flatMap((p) => [...p.keys()]))].sort((a, b) => a - b);
    charts.push({
      key,
      time,
      lines: panel.lines.map((line, i) => ({ label: line.label, color: line.color, values: time.map((t) => points[i]!.get(t) ?? null) })),
    });
  }
  const totals = panel.lines.map((line) => {
    const measured = (byTable.get(line.family)?.series ?? [])
      .flatMap((s) => s.values[line.column] ?? [])
      .filter((v): v is number => v !== null);
    return { label: line.label, total: measured.length === 0 ? null : measured.reduce((a, b) => a + b, 0) };
  });
  const [first, second] = totals;
  const difference = panel.difference
    ? { label: panel.difference, value: first?.total == null || second?.total == null ? null : first.total - second.total }
    : null;
  return { charts, totals, difference, empty: totals.every((t) => t.total === null) };
}
