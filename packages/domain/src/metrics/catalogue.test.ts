import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
// @ts-expect-error: a plain .mjs script without type declarations
import { renderAll, repoRoot } from "../../scripts/generate-catalogue.mjs";
import { capabilityCatalogue, diskLatencyBoundsSeconds, findCapability, findMetric, metricCatalogue } from "./catalogue.js";

const metricsDoc = readFileSync(new URL("../../../../docs/metrics.md", import.meta.url), "utf8");

/** docs/metrics.md writes the 28 bucket columns as `bucket_00` … `bucket_27`. */
function documentedColumns(columns: readonly string[]): string[] {
  const buckets = columns.filter((c) => c.startsWith("bucket_"));
  if (buckets.length === 0) return [...columns];
  return [...columns.filter((c) => !c.startsWith("bucket_")), buckets[0]!, buckets.at(-1)!];
}

describe("metric catalogue", () => {
  it("every generated copy (TypeScript, agent Go, gateway Go) is up to date with catalogue.json", () => {
    const files = renderAll() as Record<string, string>;
    for (const [path, expected] of Object.entries(files)) {
      const actual = readFileSync(join(repoRoot as string, path), "utf8");
      assert.ok(actual === expected, `${path} is stale or edited by hand: run node packages/domain/scripts/generate-catalogue.mjs`);
    }
  });

  it("names each metric once", () => {
    const names = metricCatalogue.map((metric) => metric.name);
    assert.equal(new Set(names).size, names.length);
  });

  it("lists exactly the metrics docs/metrics.md documents", () => {
    const documented = [...metricsDoc.matchAll(/^\| `((?:system|spindle)\.[a-z0-9_.]+)`/gm)].map((m) => m[1]);
    assert.deepEqual([...documented].sort(), metricCatalogue.map((metric) => metric.name).sort());
  });

  it("gives each metric the unit and the storage columns docs/metrics.md gives", () => {
    for (const metric of metricCatalogue) {
      const row = metricsDoc.split("\n").find((line) => line.startsWith(`| \`${metric.name}\``));
      assert.ok(row, `${metric.name} has a row in docs/metrics.md`);
      assert.ok(row.split("|")[2]!.includes(`\`${metric.unit}\``), `${metric.name}: unit ${metric.unit} in docs/metrics.md`);
      for (const column of documentedColumns(metric.columns)) {
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

  it("has 28 latency buckets: 2^0 … 2^26 µs and one above", () => {
    assert.equal(diskLatencyBoundsSeconds.length, 27);
    for (const [i, bound] of diskLatencyBoundsSeconds.entries()) assert.equal(bound, 2 ** i / 1e6);
    assert.equal(findMetric("spindle.disk.io.latency")?.columns.filter((c) => c.startsWith("bucket_")).length, 28);
  });

  it("names the capabilities the agent reports, each with the metrics it provides", () => {
    assert.deepEqual(
      capabilityCatalogue.map((c) => c.name),
      [
        "ebpf.block_latency",
        "ebpf.block_split",
        "ebpf.page_cache",
        "ebpf.mrc",
        "fiemap.fragmentation",
        "postgresql.statistics",
        "psi.pressure",
        "accel.read_cache",
        "accel.read_cache.residency",
        "accel.read_cache.holdout",
        "accel.write_optimization",
        "accel.write_optimization.preallocation",
        "accel.write_optimization.defragmentation",
        "accel.write_optimization.first_write",
        "accel.write_optimization.extent_size_hint",
      ],
    );
    for (const capability of capabilityCatalogue) for (const name of capability.metrics) assert.ok(findMetric(name), name);
    assert.deepEqual(findCapability("ebpf.page_cache")?.metrics, [
      "spindle.page_cache.accesses",
      "spindle.page_cache.misses",
      "spindle.page_cache.file.accesses",
      "spindle.page_cache.file.misses",
    ]);
  });
});
