import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isolatedPoints } from "./isolated-points";

describe("isolatedPoints", () => {
  test("a lone sample between gaps or at an edge is isolated", () => {
    assert.deepEqual(isolatedPoints([null, 3, null]), [1]);
    assert.deepEqual(isolatedPoints([3, null, null]), [0]);
    assert.deepEqual(isolatedPoints([null, null, 3]), [2]);
    assert.deepEqual(isolatedPoints([3]), [0]);
  });

  test("samples with a neighbour draw a line and are not", () => {
    assert.deepEqual(isolatedPoints([1, 2, null, 4, 5]), []);
    assert.deepEqual(isolatedPoints([null, 0, 0, null]), [], "zeros are samples too");
    assert.deepEqual(isolatedPoints([]), []);
  });

  test("undefined (no sample at that time) is spanned, a null gap is not", () => {
    assert.deepEqual(isolatedPoints([1, undefined, 2]), [], "the line spans across undefined");
    assert.deepEqual(isolatedPoints([null, undefined, 7, undefined, null]), [2]);
    assert.deepEqual(isolatedPoints([undefined, 7, undefined]), [1]);
    assert.deepEqual(isolatedPoints([1, null, undefined, 5, undefined]), [0, 3]);
  });
});
