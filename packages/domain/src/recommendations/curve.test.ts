import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { hitRatioAt, kneeWithin, type MissRatioCurve } from "./curve.js";

const gib = 1024 ** 3;
const curve: MissRatioCurve = {
  sizesBytes: [1 * gib, 2 * gib, 4 * gib, 6 * gib, 8 * gib],
  hitRatios: [0.4, 0.61, 0.8, 0.88, 0.885],
  sampleRate: 0.01,
  sampledAccesses: 200_000,
  windowFrom: new Date("2026-11-16T00:00:00Z"),
  windowTo: new Date("2026-11-23T00:00:00Z"),
};

describe("reading a miss-ratio curve", () => {
  it("reads measured points exactly and interpolates linearly between them", () => {
    assert.equal(hitRatioAt(curve, 2 * gib), 0.61);
    // halfway between 2 GiB (0.61) and 4 GiB (0.80)
    assert.ok(Math.abs(hitRatioAt(curve, 3 * gib)! - 0.705) < 1e-12);
    // below the first point, from (0, 0): a quarter of 0.40
    assert.ok(Math.abs(hitRatioAt(curve, 0.25 * gib)! - 0.1) < 1e-12);
    assert.equal(hitRatioAt(curve, 0), 0);
  });

  it("never extrapolates past the largest measured size", () => {
    assert.equal(hitRatioAt(curve, 9 * gib), null);
  });

  it("finds the smallest size within the slack of the best under the cap", () => {
    // under 9 GiB the best is 0.885 at 8 GiB; 6 GiB (0.88) is within 0.01 of it
    assert.deepEqual(kneeWithin(curve, 9 * gib, 0.01), { sizeBytes: 6 * gib, hitRatio: 0.88 });
    // a 5 GiB cap: best 0.80 at 4 GiB, nothing smaller is within 0.01
    assert.deepEqual(kneeWithin(curve, 5 * gib, 0.01), { sizeBytes: 4 * gib, hitRatio: 0.8 });
    assert.equal(kneeWithin(curve, 0.5 * gib, 0.01), null);
  });
});
