// docs/alerts.md is the operator's copy of the signal list and the default rules: it must name
// every signal and every default with the threshold the code ships.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { defaultAlertRules } from "./defaults.js";
import { alertSignals } from "./signals.js";

const doc = readFileSync(new URL("../../../../docs/alerts.md", import.meta.url), "utf8");

describe("docs/alerts.md", () => {
  it("documents every signal with its unit", () => {
    for (const signal of alertSignals) {
      const row = doc.split("\n").find((line) => line.startsWith("| ") && line.split("|")[1]!.includes(`\`${signal.id}\``));
      assert.ok(row, `${signal.id} has a row in the signals table`);
      assert.equal(row.split("|")[2]!.trim(), signal.unit, `${signal.id}: unit`);
    }
  });

  it("documents every default rule with its signal, comparison and threshold", () => {
    for (const rule of defaultAlertRules) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`${rule.key}\``));
      assert.ok(row, `${rule.key} has a row in the default rules table`);
      const condition = row.split("|")[3]!;
      assert.ok(condition.includes(`\`${rule.signal}\``), `${rule.key}: signal`);
      assert.match(condition, new RegExp(`${rule.comparison} ${rule.threshold}\\b`), `${rule.key}: ${rule.comparison} ${rule.threshold}`);
      assert.ok(row.includes(rule.severity), `${rule.key}: severity`);
    }
  });
});
