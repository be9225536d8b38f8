import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rolledUpFamilies } from "@spindle/domain";
import { mergeableFamilies, rollupStatementsBySource } from "./rollup-sql.js";

describe("rollup statements", () => {
  it("keep every family with aggregates up to date, and nothing else", () => {
    assert.deepEqual(Object.keys(rollupStatementsBySource).sort(), rolledUpFamilies.map((f) => f.table).sort());
    assert.ok(rollupStatementsBySource.write_opt_trimmed, "a family declared after the others is rolled up without code");
  });

  it("add minutes' changes to hours where every column sums or maxes, and recompute hours of means from their minutes", () => {
    for (const family of rolledUpFamilies) {
      const statements = rollupStatementsBySource[family.table]!;
      const mergeable = mergeableFamilies.some((m) => m.source === family.table);
      assert.equal(statements.length, mergeable ? 1 : 2, family.table);
      assert.match(statements[0]!, new RegExp(`INSERT INTO ${family.table}_1m`), family.table);
    }
    const memory = rollupStatementsBySource.memory!;
    assert.match(
      memory[1]!,
      /sum\(s\.total_bytes::numeric \* s\.samples\) \/ sum\(s\.samples\) FILTER \(WHERE s\.total_bytes IS NOT NULL\)/,
    );
    assert.match(rollupStatementsBySource.disk_io![0]!, /in_progress_max = greatest\(h\.in_progress_max, EXCLUDED\.in_progress_max\)/);
  });
});
