import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { policyJsonSchemaText } from "./json-schema.js";

describe("policy.schema.json", () => {
  it("is the JSON Schema of the current zod schema (run `npm run build -w @spindle/policy` to refresh it)", () => {
    const checkedIn = readFileSync(new URL("../policy.schema.json", import.meta.url), "utf8");
    assert.equal(checkedIn, policyJsonSchemaText());
  });

  it("describes every section with its defaults and limits", () => {
    const schema = JSON.parse(policyJsonSchemaText()) as {
      required: string[];
      properties: Record<string, { properties?: Record<string, Record<string, unknown>> }>;
    };
    assert.deepEqual(schema.required, ["schemaVersion"]);
    const readCache = schema.properties.readCache?.properties;
    assert.equal(readCache?.budgetPercentOfAvailable?.maximum, 90);
    assert.equal(readCache?.freeMemoryFloorBytes?.default, 512 * 1024 * 1024);
    assert.equal(schema.properties.telemetry?.properties?.intervalSeconds?.default, 10);
  });
});
