import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validatePolicyLayer } from "@spindle/policy";
import { getAt, linesToList, parseAmount, problemsAt, setAt, splitBytes } from "./form-model";

describe("policy form model", () => {
  it("sets and unsets fields by path, dropping sections left empty", () => {
    let draft = setAt({ schemaVersion: 1 }, ["readCache", "enabled"], true);
    draft = setAt(draft, ["readCache", "budgetBytes"], null);
    assert.deepEqual(draft, { schemaVersion: 1, readCache: { enabled: true, budgetBytes: null } });
    assert.equal(getAt(draft, ["readCache", "budgetBytes"]), null, "null is a value, not inheritance");
    draft = setAt(draft, ["readCache", "enabled"], undefined);
    draft = setAt(draft, ["readCache", "budgetBytes"], undefined);
    assert.deepEqual(draft, { schemaVersion: 1 });
  });

  it("maps problem paths onto the field and its entries", () => {
    const result = validatePolicyLayer({ schemaVersion: 1, readCache: { pin: ["/ok", "bad"], include: ["x"] } });
    assert.ok(!result.ok);
    assert.deepEqual(
      problemsAt(result.problems, "readCache.pin").map((p) => p.path),
      ["readCache.pin[1]"],
    );
    assert.deepEqual(
      problemsAt(result.problems, "readCache.include").map((p) => p.path),
      ["readCache.include[0]"],
    );
    assert.deepEqual(problemsAt(result.problems, "readCache.in"), [], "a prefix of a name is not the field");
  });

  it("reads lists one entry per line and sizes in the largest exact unit", () => {
    assert.deepEqual(linesToList(" /a \n\n/b\n"), ["/a", "/b"]);
    assert.deepEqual(splitBytes(2147483648), { amount: "2", unit: 1024 ** 3 });
    assert.deepEqual(splitBytes(1610612736), { amount: "1536", unit: 1024 ** 2 });
    assert.equal(parseAmount("1.5", 1024 ** 3), 1610612736);
    assert.equal(parseAmount("ten"), "ten", "not a number: the schema reports invalid_type beside the field");
    assert.equal(parseAmount(""), undefined);
  });
});
