import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cappedSums, capUnits, stallCap } from "./stall-cap.js";

const minute = (seconds: number, reads = 100) => ({ numerator: seconds * reads, denominator: reads });

describe("stall cap", () => {
  it("caps a minute at five times the median minute of all the windows", () => {
    const before = [minute(0.001), minute(0.002), minute(0.002)];
    const after = [minute(0.002), minute(0.003), minute(0.5)]; // a stall
    const cap = stallCap([before, after]);
    assert.equal(cap, 5 * 0.002);
    const sums = cappedSums(after, cap);
    assert.equal(sums.cappedMinutes, 1);
    assert.ok(Math.abs(sums.numerator - (0.2 + 0.3 + 1)) < 1e-12, "the stall counts as 0.01 s per read");
    assert.equal(sums.denominator, 300);
    assert.deepEqual(capUnits(after, cap)[2], { numerator: 100 * 0.01, denominator: 100 });
  });

  it("leaves ratios alone when most minutes are 0, and ignores idle minutes", () => {
    const splits = [minute(0), minute(0), minute(0.3), { numerator: 0, denominator: 0 }];
    assert.equal(stallCap([splits]), null);
    assert.deepEqual(cappedSums(splits, null), { numerator: 30, denominator: 300, cappedMinutes: 0 });
    assert.equal(stallCap([[{ numerator: 0, denominator: 0 }]]), null);
  });
});
