import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nextRetryDelayMs } from "./notification-retry.js";

const policy = { retryBaseMs: 10_000, retryMaxMs: 900_000, maxAttempts: 5 };

describe("notification retry delays", () => {
  it("double from the base, between half and all of the exponential step", () => {
    assert.equal(
      nextRetryDelayMs(policy, 1, undefined, () => 0),
      5_000,
    );
    assert.equal(
      nextRetryDelayMs(policy, 1, undefined, () => 1),
      10_000,
    );
    assert.equal(
      nextRetryDelayMs(policy, 3, undefined, () => 1),
      40_000,
    );
    assert.equal(
      nextRetryDelayMs(policy, 3, undefined, () => 0.5),
      30_000,
    );
  });

  it("are capped, honour Retry-After up to an hour, and stop when attempts run out", () => {
    const long = { ...policy, maxAttempts: 100 };
    assert.equal(
      nextRetryDelayMs(long, 40, undefined, () => 1),
      900_000,
    );
    assert.equal(
      nextRetryDelayMs(policy, 1, 120, () => 1),
      120_000,
    );
    assert.equal(
      nextRetryDelayMs(policy, 1, 1, () => 1),
      10_000,
      "a shorter Retry-After does not hurry the backoff",
    );
    assert.equal(
      nextRetryDelayMs(policy, 1, 86_400, () => 1),
      3_600_000,
    );
    assert.equal(nextRetryDelayMs(policy, 5, undefined), null);
  });
});
