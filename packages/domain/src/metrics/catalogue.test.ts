import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { findMetric, metricCatalogue } from "./catalogue.js";

const metricsDoc = readFileSync(new URL("../../../../docs/metrics.md", import.meta.url), "utf8");

describe("metric catalogue", () => {
  it("names each metric once", () => {
    const names = metricCatalogue.map((metric) => metric.name);
    assert.equal(new Set(names).size, names.length);
  });

  it("lists exactly the metrics docs/metrics.md documents", () => {
    const documented = [...metricsDoc.matchAll(/^\| `((?:system|spindle)\.[a-z_.]+)`/gm)].map((m) => m[1]);
    assert.deepEqual([...documented].sort(), metricCatalogue.map((metric) => metric.name).sort());
  });

  it("stores each metric in the columns docs/metrics.md gives", () => {
    for (const metric of metricCatalogue) {
      const row = metricsDoc.split("\n").find((line) => line.startsWith(`| \`${metric.name}\``));
      assert.ok(row, `${metric.name} has a row in docs/metrics.md`);
      for (const column of metric.columns) {
        assert.ok(row.includes(`\`${column}\``), `${metric.name}: column ${column} in docs/metrics.md`);
      }
    }
  });

  it("stores no column under two metrics", () => {
    const columns = metricCatalogue.flatMap((metric) => metric.columns.map((c) => `${metric.table}.${c}`));
    assert.equal(new Set(columns).size, columns.length);
  });

  it("finds a metric by its OTLP name", () => {
    assert.equal(findMetric("system.disk.io")?.columns[0], "read_bytes");
    assert.equal(findMetric("system.disk.nonexistent"), undefined);
  });
});
