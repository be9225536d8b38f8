import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
// @ts-expect-error: plain .mjs scripts without type declarations
import { familiesOf } from "../../scripts/families/model.mjs";
// @ts-expect-error: plain .mjs scripts without type declarations
import { migrationSql } from "../../scripts/families/sql.mjs";
import { familyRetention, findFamily, rolledUpFamilies } from "./families.js";

const catalogue = JSON.parse(readFileSync(new URL("../../metrics/catalogue.json", import.meta.url), "utf8"));
const declared = (families: object[]) => () => familiesOf({ families });
const minimal = {
  table: "example_family",
  migration: "20261201000000_example",
  kind: "interval",
  what: "an example",
  measures: [{ name: "things", type: "bigint" }],
  gateway: { rows: "accel" },
};

describe("metric families", () => {
  it("expands a declaration: raw columns in order, default sums, retention and storage", () => {
    const [family] = familiesOf({ families: [minimal] });
    assert.deepEqual(
      family.columns.map((c: { name: string }) => c.name),
      ["time", "org_id", "server_id", "interval_seconds", "things"],
    );
    assert.deepEqual(
      family.aggregates.map((a: { name: string; fn: string }) => `${a.name}=${a.fn}`),
      ["interval_seconds=sum", "things=sum", "samples=count"],
    );
    assert.equal(family.storage.keepRaw, "30 days");
    assert.equal(family.storage.compressAfter, "3 days");
  });

  it("refuses a declaration the generator cannot build, naming each problem", () => {
    assert.throws(declared([{ ...minimal, measures: [{ name: "things", type: "numeric" }] }]), /things has type numeric/);
    assert.throws(declared([{ ...minimal, aggregates: [["total", "sum", "nothing"]] }]), /total reads nothing, which is not a column/);
    assert.throws(declared([{ ...minimal, aggregates: [["mean", "avg", "things"]] }]), /weighs its minutes by samples/);
    assert.throws(
      declared([minimal, { ...minimal, table: "older", migration: "20261101000000_older" }]),
      /listed in the order of their migrations/,
    );
    assert.throws(declared([{ ...minimal, gateway: { rows: "somewhere" } }]), /gateway.rows must be one of/);
  });

  it("writes a new family's migration with rollup_pending's list up to it, and no prose an edit could change", () => {
    const families = familiesOf({ families: [{ ...minimal, table: "first", migration: "20261130000000_first" }, minimal] });
    const plain = migrationSql(families, "20261201000000_example", "plain");
    assert.match(plain, /CHECK \(source IN \('first', 'example_family'\)\)/);
    assert.doesNotMatch(plain, /an example/);
    const timescale = migrationSql(families, "20261201000000_example", "timescale");
    assert.match(timescale, /CREATE MATERIALIZED VIEW example_family_1m/);
    assert.doesNotMatch(timescale, /rollup_pending/);
  });

  it("gives the worker every rolled-up family's statements and retention, trimmed preallocation included", () => {
    const tables = rolledUpFamilies.map((f) => f.table);
    assert.deepEqual(
      tables,
      familiesOf(catalogue)
        .filter((f: { aggregates: unknown; kind: string }) => f.kind === "interval" && f.aggregates)
        .map((f: { table: string }) => f.table),
    );
    assert.ok(tables.includes("write_opt_trimmed"));
    assert.ok(familyRetention.some((r) => r.table === "write_opt_trimmed_1h" && r.keep === "2 years"));
    assert.ok(familyRetention.some((r) => r.table === "fragmentation_scans" && r.keep === "2 years"));
    const memory = findFamily("memory");
    assert.ok(memory?.kind === "interval" && memory.aggregates?.some((a) => a.merge === "mean"));
  });
});
