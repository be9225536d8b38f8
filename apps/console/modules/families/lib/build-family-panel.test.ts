import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { familyPanels, type FamilyPanel } from "../panels";
import type { FamilySeries } from "../types/family-series";
import { buildFamilyPanel } from "./build-family-panel";
import { drawableFamilies } from "./family-series-sql";

const panel: FamilyPanel = {
  id: "test",
  title: "Test",
  description: "",
  basis: "",
  capability: "accel.write_optimization.preallocation",
  idle: "",
  unit: "bytes",
  lines: [
    { family: "write_opt", column: "preallocated_bytes", label: "Reserved", color: "#000" },
    { family: "write_opt_trimmed", column: "trimmed_bytes", label: "Given back", color: "#111" },
  ],
  difference: "Still reserved",
};

const series = (table: string, time: number[], values: Record<string, (number | null)[]>): FamilySeries => ({
  table,
  range: "1h",
  from: "",
  to: "",
  bucketSeconds: null,
  columns: Object.keys(values),
  series: [{ key: {}, time, values }],
});

describe("buildFamilyPanel", () => {
  it("draws each line per second over its own intervals, on the union of the families' times", () => {
    const built = buildFamilyPanel(panel, [
      series("write_opt", [10, 20], { interval_seconds: [10, 10], preallocated_bytes: [1000, 3000] }),
      series("write_opt_trimmed", [20, 30], { interval_seconds: [10, 5], trimmed_bytes: [500, 50] }),
    ]);
    assert.equal(built.charts.length, 1);
    assert.deepEqual(built.charts[0]!.time, [10, 20, 30]);
    assert.deepEqual(
      built.charts[0]!.lines.map((l) => l.values),
      [
        [100, 300, null],
        [null, 50, 10],
      ],
    );
    assert.deepEqual(built.totals, [
      { label: "Reserved", total: 4000 },
      { label: "Given back", total: 550 },
    ]);
    assert.deepEqual(built.difference, { label: "Still reserved", value: 3450 });
    assert.equal(built.empty, false);
  });

  it("keeps a line that measured nothing as not measured, and so the difference, never 0", () => {
    const built = buildFamilyPanel(panel, [
      series("write_opt", [10], { interval_seconds: [10], preallocated_bytes: [null] }),
      series("write_opt_trimmed", [10], { interval_seconds: [10], trimmed_bytes: [0] }),
    ]);
    assert.deepEqual(built.totals, [
      { label: "Reserved", total: null },
      { label: "Given back", total: 0 },
    ]);
    assert.deepEqual(built.difference, { label: "Still reserved", value: null });
    assert.deepEqual(built.charts[0]!.lines[0]!.values, [null]);
    assert.equal(built.empty, false);
  });

  it("is empty when no family has a point in the range", () => {
    const built = buildFamilyPanel(panel, []);
    assert.deepEqual(built.charts, []);
    assert.equal(built.empty, true);
  });

  it("declares only panels of drawable families' summed columns", () => {
    for (const declared of familyPanels) {
      for (const line of declared.lines) {
        const family = drawableFamilies.get(line.family);
        assert.ok(family, `${declared.id}: ${line.family} is not a drawable family`);
        const column = family.aggregates.find((a) => a.name === line.column);
        assert.equal(column?.merge, "sum", `${declared.id}: ${line.family}.${line.column} is not a summed aggregate column`);
        assert.ok(
          family.aggregates.some((a) => a.name === "interval_seconds"),
          `${line.family} has no interval_seconds to rate by`,
        );
      }
    }
  });
});
