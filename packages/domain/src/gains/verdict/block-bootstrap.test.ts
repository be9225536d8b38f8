import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalSource, seededRandom } from "../../stats/random.js";
import { compareByBlockBootstrap } from "./block-bootstrap.js";

/** `n` minutes of 100 reads whose mean latency follows an AR(1) in logs around `seconds`. */
function minutes(n: number, seconds: number, phi: number, seed: number) {
  const normal = normalSource(seededRandom(seed));
  let x = 0;
  return Array.from({ length: n }, () => {
    x = phi * x + Math.sqrt(1 - phi * phi) * 0.3 * normal();
    return { numerator: 100 * seconds * Math.exp(x), denominator: 100 };
  });
}

describe("the block-bootstrap fallback", () => {
  it("compares two windows with a block-bootstrap standard error, deterministically for its seed", () => {
    const before = minutes(1440, 0.002, 0.3, 1);
    const after = minutes(1440, 0.0015, 0.3, 2);
    const result = compareByBlockBootstrap(before, after, "reads");
    assert.equal(result.status, "compared");
    if (result.status !== "compared") return;
    assert.equal(result.estimate.scale, "relative");
    assert.ok(Math.abs(result.estimate.estimate - Math.log(result.after / result.before)) < 1e-12);
    assert.ok(result.estimate.estimate < -0.2 && result.estimate.estimate > -0.35);
    // About 0.3 × √(τ / n) per side for the log of a mean of log-normal minutes.
    assert.ok(result.estimate.standardError > 0.005 && result.estimate.standardError < 0.03, String(result.estimate.standardError));
    assert.ok(result.blockMinutes.before >= Math.ceil(Math.cbrt(1440)));
    assert.deepEqual(compareByBlockBootstrap(before, after, "reads"), result);
    assert.notDeepEqual(compareByBlockBootstrap(before, after, "reads", { seed: 7 }).estimate.standardError, result.estimate.standardError);
  });

  it("answers not enough data when persistent minutes are worth fewer than 30 independent ones", () => {
    const sticky = compareByBlockBootstrap(minutes(240, 0.002, 0.97, 3), minutes(240, 0.002, 0.97, 4), "reads");
    assert.equal(sticky.status, "not-enough-data");
    assert.match(
      sticky.status === "not-enough-data" ? sticky.reason : "",
      /^the 240 minutes before the change are worth [\d.]+ independent ones \(latency persists for about \d+ minutes\); at least 30 are needed$/,
    );
    const quiet = compareByBlockBootstrap([{ numerator: 0.1, denominator: 50 }], minutes(100, 0.002, 0, 5), "reads");
    assert.deepEqual(quiet, { status: "not-enough-data", reason: "50 reads before the change; at least 100 are needed" });
  });
});
