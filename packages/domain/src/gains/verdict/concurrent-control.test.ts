import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { differenceInDifferences, type ServerWindows } from "./concurrent-control.js";
import { intervalOf } from "./estimate.js";

const close = (actual: number, expected: number, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} ≠ ${expected}`);
const server = (serverId: string, before: number, after: number, reads = 1000): ServerWindows => ({
  serverId,
  before: { numerator: before * reads, denominator: reads },
  after: { numerator: after * reads, denominator: reads },
});

describe("difference in differences against servers not yet changed", () => {
  it("subtracts the controls' mean change from the treated change, with a pooled t interval", () => {
    // Absolute scale (a 0 somewhere). Controls change by +1, +2, +3 (mean 2, variance 1); treated by −2.
    const result = differenceInDifferences([server("t", 5, 3)], [server("a", 0, 1), server("b", 1, 3), server("c", 2, 5)]);
    assert.equal(result.status, "compared");
    if (result.status !== "compared") return;
    assert.equal(result.estimate.scale, "absolute");
    close(result.estimate.estimate, -4);
    // Pooled variance = (0 + 2 × 1) / 2 = 1; SE = √(1 × (1 + 1/3)); df = 1 + 3 − 2.
    close(result.estimate.standardError, Math.sqrt(4 / 3));
    assert.equal(result.estimate.degreesOfFreedom, 2);
    close(result.change, -4);
    const interval = intervalOf(result.estimate, 0.95);
    close(result.interval.low, interval.low);
    assert.ok(result.interval.low < -4 && result.interval.high > 0, "three controls leave a wide interval");
    // What the treated server would have been: 5 + 2.
    close(result.expected, 7);
    close(result.after, 3);
    assert.deepEqual([result.treated, result.control], [["t"], ["a", "b", "c"]]);
  });

  it("works on log ratios, so a fleet-wide 20 % rise cancels", () => {
    const controls = ["a", "b", "c", "d"].map((id, i) => server(id, 1 + i, (1 + i) * 1.2 * (i % 2 ? 1.01 : 0.99)));
    const result = differenceInDifferences([server("t", 2, 2 * 1.2 * 0.5)], controls);
    assert.equal(result.status === "compared" && result.estimate.scale, "relative");
    if (result.status !== "compared") return;
    close(result.change, 0.5 / Math.exp((Math.log(0.99) + Math.log(1.01)) / 2) - 1, 1e-9);
    assert.ok(result.pValue < 0.001 && result.interval.high < 0);
  });

  it("pools the treated servers' own spread when there are several", () => {
    const result = differenceInDifferences(
      [server("t1", 1, 1), server("t2", 1, 3)],
      [server("a", 0, 0), server("b", 1, 1), server("c", 2, 2)],
    );
    assert.equal(result.status, "compared");
    if (result.status !== "compared") return;
    close(result.estimate.estimate, 1);
    // Treated changes 0 and 2 (variance 2), controls all 0: pooled (1 × 2 + 0) / 3.
    close(result.estimate.standardError, Math.sqrt((2 / 3) * (1 / 2 + 1 / 3)));
    assert.equal(result.estimate.degreesOfFreedom, 3);
  });

  it("lists servers without enough data and needs three controls", () => {
    const result = differenceInDifferences([server("t", 1, 1)], [server("a", 1, 1), server("b", 1, 1, 50), server("c", 1, 1)]);
    assert.equal(result.status, "not-enough-data");
    assert.equal(result.reason, "2 servers not yet changed have enough data in both windows; 3 are needed");
    assert.deepEqual(result.excluded, [{ serverId: "b", reason: "fewer than 100 in the window before the change" }]);
    assert.equal(
      differenceInDifferences([server("t", 1, 1, 10)], [server("a", 1, 1), server("b", 1, 1), server("c", 1, 1)]).status,
      "not-enough-data",
    );
  });
});
