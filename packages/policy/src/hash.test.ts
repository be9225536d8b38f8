import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { canonicalJson, policyHash } from "./hash.js";
import { parsePolicy } from "./parse.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("canonical JSON and the policy hash", () => {
  it("sorts keys at every depth and drops whitespace, so key order never changes the hash", () => {
    const a = { b: 1, a: { d: [1, { z: 0, y: 1 }], c: false } };
    const b = { a: { c: false, d: [1, { y: 1, z: 0 }] }, b: 1 };
    assert.equal(canonicalJson(a), '{"a":{"c":false,"d":[1,{"y":1,"z":0}]},"b":1}');
    assert.equal(policyHash(a), policyHash(b));
  });

  it("orders keys by UTF-16 code units and writes numbers and strings as JSON.stringify does", () => {
    assert.equal(canonicalJson({ b: 1, B: 2, a: 3, "\u00e9": 4, _: 5 }), '{"B":2,"_":5,"a":3,"b":1,"\u00e9":4}');
    assert.equal(canonicalJson([1125899906842624, 0, -0, null, "D:/x\n"]), '[1125899906842624,0,0,null,"D:/x\\n"]');
  });

  it("keeps list order (lists are values in a policy) and refuses what JSON cannot hold", () => {
    assert.notEqual(policyHash({ include: ["/a", "/b"] }), policyHash({ include: ["/b", "/a"] }));
    assert.throws(() => canonicalJson(Number.NaN), /no form for NaN/);
    assert.throws(() => canonicalJson(() => 1), /no form for a function/);
  });

  it("hashes the normalised empty document to the value docs/policy.md quotes", () => {
    const parsed = parsePolicy({ schemaVersion: 1 });
    assert.ok(parsed.ok);
    const text = canonicalJson(parsed.policy);
    assert.ok(text.startsWith('{"readCache":{"budgetBytes":null,"budgetPercentOfAvailable":25,'));
    assert.equal(policyHash(parsed.policy), sha256(text));
    assert.equal(policyHash(parsed.policy), "269d745e6e7c2d1eb135251041eb997cc9630a056503f8eac00a3c683cea2395");
  });

  it("hashes the worked example of docs/policy.md to the value docs/policy.md quotes", () => {
    const vector = JSON.parse(readFileSync(new URL("../vectors/merge/postgres-worked-example.json", import.meta.url), "utf8"));
    assert.equal(policyHash(vector.normalised), "19e390e00adef35d79715b906b0188a0d9e7cae9ed916b2b31562f9944645591");
  });
});
